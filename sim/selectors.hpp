#pragma once
// Label and field selectors with the Kubernetes grammar (labels: k=v, k==v, k!=v, k in (a,b),
// k notin (a,b), k, !k; fields: f=v, f==v, f!=v; comma means AND).

#include "api.hpp"

#include <map>
#include <string>
#include <vector>

namespace kprov::sim {

class LabelSelector {
public:
    /// Throws ApiError 400 on a syntax error. An empty string selects everything.
    static LabelSelector parse(const std::string& text);
    bool matches(const Json& labels) const;
    bool empty() const { return m_terms.empty(); }

private:
    enum class Op { Equals, NotEquals, In, NotIn, Exists, NotExists };
    struct Term {
        std::string key;
        Op op;
        std::vector<std::string> values;
    };
    std::vector<Term> m_terms;
};

class FieldSelector {
public:
    /// `fields` maps each supported field label to a JSON pointer into the object. Throws
    /// ApiError 400 "field label not supported" for any other label, or on a syntax error.
    static FieldSelector parse(const std::string& text,
                               const std::map<std::string, std::string>& fields);
    bool matches(const Json& object) const;

private:
    struct Term {
        std::string pointer;
        bool equals;
        std::string value;
    };
    std::vector<Term> m_terms;
};

} // namespace kprov::sim
