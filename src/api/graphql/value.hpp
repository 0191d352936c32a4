#pragma once
// What resolvers hand the executor: a JSON-shaped value that is cheap to build and to drop.
//
// nlohmann::json keeps an object's members in a std::map with a heap-allocated key each, and
// tears a tree down through a stack of moved children; for a runtimeStatus that was nearly half
// of the executor's work. A Value object is one vector of members whose keys are string
// literals, so building one costs an allocation per object and per long string, and dropping it
// the same frees. Any nlohmann::json converts to a Value (held as it is), so resolvers that
// already have JSON (introspection, tests) return it unchanged; ValueRef reads either kind.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kprov::api::graphql {

/// An object member's name: a string literal (or another char array that outlives every Value
/// it names), so that no copy is made.
class StaticKey {
public:
    template <std::size_t N>
    constexpr StaticKey(const char (&literal)[N]) // NOLINT: implicit from a literal on purpose
        : m_view(literal, N - 1) {}
    std::string_view view() const { return m_view; }

private:
    std::string_view m_view;
};

class Value {
public:
    struct Member;
    using List = std::vector<Value>;
    using Members = std::vector<Member>;

    // Defined below Member: the variant's special members need it complete.
    Value() noexcept; ///< null
    Value(std::nullptr_t) noexcept;
    Value(bool b) noexcept;
    Value(int i) noexcept;
    Value(long i) noexcept;
    Value(long long i) noexcept;
    Value(double d) noexcept;
    Value(std::string s) noexcept;
    Value(const char* s);
    /// Any other pointer would silently become a boolean.
    template <typename T> Value(const T*) = delete;
    Value(const std::vector<std::string>& strings);
    /// Any JSON, kept as nlohmann::json and read as such.
    Value(nlohmann::json j) noexcept;

    /// An empty object with room for `members` members.
    static Value object(std::size_t members = 0);
    static Value array();

    /// Appends a member to an object (the caller does not add a name twice).
    void add(StaticKey key, Value value);
    /// An object's member by name; null when absent or not an object.
    const Value* member(std::string_view key) const;
    Value* member(std::string_view key);
    /// Appends an item to an array.
    void push_back(Value value);

    bool is_null() const { return std::holds_alternative<std::monostate>(m_v); }
    const bool* boolean() const { return std::get_if<bool>(&m_v); }
    const std::int64_t* integer() const { return std::get_if<std::int64_t>(&m_v); }
    const double* number() const { return std::get_if<double>(&m_v); }
    const std::string* string() const { return std::get_if<std::string>(&m_v); }
    const List* list() const { return std::get_if<List>(&m_v); }
    const Members* members() const { return std::get_if<Members>(&m_v); }
    const nlohmann::json* as_json() const { return std::get_if<nlohmann::json>(&m_v); }

    /// The same value as nlohmann::json (a deep copy; for tests and slow paths).
    nlohmann::json to_json() const;

private:
    std::variant<std::monostate, bool, std::int64_t, double, std::string, List, Members,
                 nlohmann::json>
        m_v;
};

struct Value::Member {
    std::string_view key;
    Value value;
};

inline Value::Value() noexcept = default;
inline Value::Value(std::nullptr_t) noexcept {}
inline Value::Value(bool b) noexcept
    : m_v(b) {}
inline Value::Value(int i) noexcept
    : m_v(std::int64_t{i}) {}
inline Value::Value(long i) noexcept
    : m_v(std::int64_t{i}) {}
inline Value::Value(long long i) noexcept
    : m_v(std::int64_t{i}) {}
inline Value::Value(double d) noexcept
    : m_v(d) {}
inline Value::Value(std::string s) noexcept
    : m_v(std::move(s)) {}
inline Value::Value(const char* s)
    : m_v(std::string(s)) {}
inline Value::Value(nlohmann::json j) noexcept
    : m_v(std::move(j)) {}

/// How engine/status_tree.hpp's builders add a member (found by argument-dependent lookup).
inline void add_member(Value& object, StaticKey key, Value&& value) {
    object.add(key, std::move(value));
}

/// A read-only view of a Value, or of JSON inside one, as the executor and resolvers read it.
/// Views only: the value must outlive the ref. A default ref is null.
class ValueRef {
public:
    ValueRef() = default;
    ValueRef(const Value& v)
        : m_value(&v) {
        if (const auto* j = v.as_json()) {
            m_value = nullptr;
            m_json = j;
        }
    }
    ValueRef(const nlohmann::json& j)
        : m_json(&j) {}

    bool is_null() const;
    /// The text of a string, or null for any other kind.
    const std::string* string() const;
    /// The value of a boolean, or null for any other kind.
    const bool* boolean() const;
    bool is_list() const;
    /// Items of a list (0 for anything else), and the i-th of them.
    std::size_t size() const;
    ValueRef item(std::size_t i) const;
    bool is_object() const;
    /// An object's member by name; null when absent or when this is not an object.
    ValueRef member(std::string_view name) const;

    /// The value as nlohmann::json (a copy).
    nlohmann::json to_json() const;
    /// The JSON this refers to when it is JSON-backed, else null.
    const nlohmann::json* as_json() const { return m_json; }

private:
    const Value* m_value = nullptr;
    const nlohmann::json* m_json = nullptr;
};

} // namespace kprov::api::graphql
