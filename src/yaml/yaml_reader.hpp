#pragma once
// The one place kprov loads YAML (runtime files, the config file, kubeconfigs, the Director's
// OAuth file, Kyma releases): libyaml's event parser, a tree built with an explicit stack (no
// recursion an input controls), bounds on size, depth, nodes and the bytes aliases expand to
// checked before anything is built, every document of a stream read by the parser.
//
// One YAML-to-JSON conversion, one set of scalar rules (YAML 1.2's core schema, with what JSON
// cannot hold left as text):
// - A quoted or block scalar, and one tagged "!" or "!!str", is a string ("true" is text).
// - A plain scalar: "", ~, null, Null, NULL -> null; true/false in their three casings
//   (true, True, TRUE) -> boolean; [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+ -> integer (beyond 64
//   bits: a double); a decimal number with fraction or exponent -> double; anything else,
//   YAML 1.1's yes/no/on/off and .inf/.nan included (JSON has no infinity), -> string.
// - "!!int", "!!float", "!!bool", "!!null" type a scalar by those rules or are a problem;
//   any other scalar tag is a problem, and the scalar is read as if untagged.
// - Scalars::AsWritten (readers that parse each value themselves, like the environment's
//   text): the plain null forms above are null, every other scalar is its text as written.
// - Mapping keys are the text of scalar keys; a mapping or sequence as a key is a problem and
//   its entry is left out. A key given twice is a problem and the first value stays
//   (DuplicateKeys::LastWins: the last value stays, no problem, as Kubernetes' YAML reads).

#include "engine/error.hpp"
#include "yaml/yaml_check.hpp"

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kprov::yaml {

struct Mark {
    std::size_t line = 0;   ///< 1-based
    std::size_t column = 0; ///< 1-based
};

enum class Scalars { Typed, AsWritten };
enum class DuplicateKeys { Problem, LastWins };

struct ReadOptions {
    /// A zero member takes k_foreign_bounds' value: the reader is never unbounded.
    Bounds bounds = k_foreign_bounds;
    Scalars scalars = Scalars::Typed;
    DuplicateKeys duplicate_keys = DuplicateKeys::Problem;
    bool record_marks = false; ///< fill Documents::value_marks
};

/// A value the reader could not take as written; reading goes on.
struct ValueProblem {
    std::string path; ///< "a.b[2].c" ("" for the document itself)
    Mark mark;
    std::string message; ///< "is given twice (first at line 3)"
};

/// The text is not YAML, or breaks a bound. what() is the message with its line and column;
/// message() is without them, and bound() names the bound broken ("" for a syntax error).
class ReadError : public Error {
public:
    ReadError(Mark mark, std::string message, std::string bound);
    const Mark& mark() const { return m_mark; }
    const std::string& message() const { return m_message; }
    const std::string& bound() const { return m_bound; }

private:
    Mark m_mark;
    std::string m_message;
    std::string m_bound;
};

struct Documents {
    std::vector<nlohmann::json> documents; ///< in stream order; an empty document is null
    std::vector<Mark> marks;               ///< where each document's content begins
    /// Per document, where each value begins, by JSON pointer ("" the document, "/a/0");
    /// empty unless ReadOptions::record_marks.
    std::vector<std::unordered_map<std::string, Mark>> value_marks;
    std::vector<ValueProblem> problems; ///< at most k_max_value_problems
    bool more_problems = false;         ///< some were left out
};

inline constexpr std::size_t k_max_value_problems = 100;

/// Reads every document of `text`. Throws ReadError for what is not YAML (libyaml's message, or
/// the checks of text_problem) and an alias naming no anchor; and a broken bound, named:
/// "max_text_bytes", "max_depth" (an alias inside the node it names too: it nests without
/// end), "max_nodes", "max_expanded_bytes".
/// Memory is bounded by the bounds. Thread-safe.
Documents read_documents(std::string_view text, const ReadOptions& options = {});

} // namespace kprov::yaml
