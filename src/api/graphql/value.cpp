#include "api/graphql/value.hpp"

#include <algorithm>
#include <utility>

namespace kprov::api::graphql {

using json = nlohmann::json;

Value::Value(const std::vector<std::string>& strings)
    : m_v(List(strings.begin(), strings.end())) {}

Value Value::object(std::size_t members) {
    Value v;
    v.m_v.emplace<Members>().reserve(members);
    return v;
}

Value Value::array() {
    Value v;
    v.m_v.emplace<List>();
    return v;
}

void Value::add(StaticKey key, Value value) {
    std::get<Members>(m_v).push_back({key.view(), std::move(value)});
}

const Value* Value::member(std::string_view key) const {
    const auto* members = std::get_if<Members>(&m_v);
    if (!members)
        return nullptr;
    // A few dozen members at most: a scan of short keys beats a map's allocations.
    const auto it = std::find_if(members->begin(), members->end(),
                                 [&](const Member& m) { return m.key == key; });
    return it == members->end() ? nullptr : &it->value;
}

Value* Value::member(std::string_view key) {
    return const_cast<Value*>(std::as_const(*this).member(key));
}

void Value::push_back(Value value) {
    std::get<List>(m_v).push_back(std::move(value));
}

json Value::to_json() const {
    return ValueRef(*this).to_json();
}

bool ValueRef::is_null() const {
    return m_json ? m_json->is_null() : !m_value || m_value->is_null();
}

const std::string* ValueRef::string() const {
    if (m_json)
        return m_json->is_string() ? &m_json->get_ref<const std::string&>() : nullptr;
    return m_value ? m_value->string() : nullptr;
}

const bool* ValueRef::boolean() const {
    if (m_json)
        return m_json->is_boolean() ? &m_json->get_ref<const bool&>() : nullptr;
    return m_value ? m_value->boolean() : nullptr;
}

bool ValueRef::is_list() const {
    return m_json ? m_json->is_array() : m_value && m_value->list();
}

std::size_t ValueRef::size() const {
    if (m_json)
        return m_json->is_array() ? m_json->size() : 0;
    const auto* list = m_value ? m_value->list() : nullptr;
    return list ? list->size() : 0;
}

ValueRef ValueRef::item(std::size_t i) const {
    if (m_json)
        return ValueRef((*m_json)[i]);
    return ValueRef((*m_value->list())[i]);
}

bool ValueRef::is_object() const {
    return m_json ? m_json->is_object() : m_value && m_value->members();
}

ValueRef ValueRef::member(std::string_view name) const {
    if (m_json) {
        if (!m_json->is_object())
            return {};
        const auto it = m_json->find(name);
        return it == m_json->end() ? ValueRef() : ValueRef(*it);
    }
    const Value* member = m_value ? m_value->member(name) : nullptr;
    return member ? ValueRef(*member) : ValueRef();
}

json ValueRef::to_json() const {
    if (m_json)
        return *m_json;
    if (!m_value)
        return nullptr;
    const Value& v = *m_value;
    if (const auto* b = v.boolean())
        return *b;
    if (const auto* i = v.integer())
        return *i;
    if (const auto* d = v.number())
        return *d;
    if (const auto* s = v.string())
        return *s;
    if (const auto* list = v.list()) {
        json out = json::array();
        for (const auto& item : *list)
            out.push_back(ValueRef(item).to_json());
        return out;
    }
    if (const auto* members = v.members()) {
        json out = json::object();
        for (const auto& m : *members)
            out[std::string(m.key)] = ValueRef(m.value).to_json();
        return out;
    }
    return nullptr;
}

} // namespace kprov::api::graphql
