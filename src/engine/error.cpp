#include "engine/error.hpp"

namespace kprov {
namespace {

std::string summarize(const std::vector<FieldProblem>& problems) {
    std::string text;
    for (const auto& p : problems) {
        if (!text.empty())
            text += "; ";
        text += p.path.empty() ? p.message : p.path + ": " + p.message;
    }
    return text.empty() ? "invalid input" : text;
}

} // namespace

ValidationError::ValidationError(std::vector<FieldProblem> problems)
    : Error(summarize(problems))
    , m_problems(std::move(problems)) {}

ValidationError::ValidationError(std::string path, std::string message)
    : ValidationError(std::vector<FieldProblem>{{std::move(path), std::move(message)}}) {}

OperationInProgress::OperationInProgress(const std::string& runtime_id)
    : Conflict("cannot start new operation for " + runtime_id +
               " Runtime while previous one is in progress")
    , m_runtime_id(runtime_id) {}

RuntimeProtected::RuntimeProtected(const std::string& runtime_id)
    : Conflict("runtime " + runtime_id + " is protected against deprovisioning: unprotect it " +
               "first (kprov unprotect " + runtime_id + ")") {}

} // namespace kprov
