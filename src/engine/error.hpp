#pragma once
// kprov's error hierarchy. Every failure that leaves a component is one of these; the CLI maps
// them to exit codes once (cli::run in cli/app.cpp) and the API to GraphQL error extensions
// (api/errors.cpp).

#include <stdexcept>
#include <string>
#include <vector>

namespace kprov {

/// Base of every kprov error. what() is a complete sentence fit for a user.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One problem in a user's input: where (a dotted field path such as
/// "clusterConfig.gardenerConfig.autoScalerMin"), what was given and what was expected.
struct FieldProblem {
    std::string path;
    std::string message;
};

/// Bad input. Carries every problem found, not just the first.
class ValidationError : public Error {
public:
    explicit ValidationError(std::vector<FieldProblem> problems);
    ValidationError(std::string path, std::string message);
    const std::vector<FieldProblem>& problems() const { return m_problems; }

    /// Where the input came from ("rt.yaml", "the provisionRuntime mutation"); "" when unknown.
    const std::string& source() const { return m_source; }
    void set_source(std::string source) { m_source = std::move(source); }

private:
    std::vector<FieldProblem> m_problems;
    std::string m_source;
};

/// A configuration value (file, environment or flag) that cannot be used; refused at start.
class ConfigError : public Error {
public:
    using Error::Error;
};

/// A thing that was asked for by id does not exist.
class NotFound : public Error {
public:
    using Error::Error;
};

/// The request conflicts with the current state.
class Conflict : public Error {
public:
    using Error::Error;
};

/// A new operation was refused because the runtime already has one in progress.
class OperationInProgress : public Conflict {
public:
    /// The message is the original's ("cannot start new operation for <id> Runtime while
    /// previous one is in progress"): the API answers with it.
    explicit OperationInProgress(const std::string& runtime_id);
    /// The same refusal in other words (the CLI names the operation in progress).
    OperationInProgress(const std::string& runtime_id, const std::string& message)
        : Conflict(message)
        , m_runtime_id(runtime_id) {}
    /// The runtime whose operation is in progress.
    const std::string& runtime_id() const { return m_runtime_id; }

private:
    std::string m_runtime_id;
};

/// Deprovisioning a protected runtime (RuntimeLifecycle::is_protected) was refused.
class RuntimeProtected : public Conflict {
public:
    explicit RuntimeProtected(const std::string& runtime_id);
};

/// A worker wrote to an operation whose lease it no longer holds; the write was not applied.
class LeaseLost : public Error {
public:
    using Error::Error;
};

/// The state store failed (connection, SQL, schema). The message never contains credentials.
class StoreError : public Error {
public:
    using Error::Error;
};

/// A remote service (Gardener, a runtime cluster, Director) answered with an error or not at all.
class RemoteError : public Error {
public:
    RemoteError(std::string message, int http_status, bool retryable, std::string reason = {},
                std::string component = {})
        : Error(std::move(message))
        , m_http_status(http_status)
        , m_retryable(retryable)
        , m_reason(std::move(reason))
        , m_component(std::move(component)) {}
    /// 0 when no HTTP answer arrived (connection refused, timeout).
    int http_status() const { return m_http_status; }
    bool retryable() const { return m_retryable; }
    /// Why, in the service's words: a Kubernetes StatusReason ("NotFound", "Invalid", ...) or
    /// Director's error type; "" when the answer carried none or none arrived.
    const std::string& reason() const { return m_reason; }
    /// Who failed, as the original's lastError.component names it ("k8s client - gardener",
    /// "k8s client - cluster", "compass director", ...); "" when the thrower did not say.
    const std::string& component() const { return m_component; }

private:
    int m_http_status;
    bool m_retryable;
    std::string m_reason;
    std::string m_component;
};

} // namespace kprov
