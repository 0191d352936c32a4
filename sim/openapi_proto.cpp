// The Swagger 2.0 document in gnostic's protobuf encoding (openapi_v2.Document of
// OpenAPIv2.proto): kubectl fetches /openapi/v2 in protobuf only, for client-side validation
// and `explain`. Only the messages and fields a JSON schema of ours can hold are written.

#include "openapi.hpp"

#include <cstdint>

namespace kprov::sim {

namespace {

// Protocol buffers wire format: varints and length-delimited fields are all we need.
class Message {
public:
    void bytes(int field, const std::string& value) {
        tag(field, 2);
        varint(value.size());
        m_out += value;
    }
    void boolean(int field, bool value) {
        tag(field, 0);
        varint(value ? 1 : 0);
    }
    const std::string& str() const { return m_out; }

private:
    void tag(int field, int wire_type) {
        varint((static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(wire_type));
    }
    void varint(std::uint64_t v) {
        while (v >= 0x80) {
            m_out += static_cast<char>((v & 0x7f) | 0x80);
            v >>= 7;
        }
        m_out += static_cast<char>(v);
    }
    std::string m_out;
};

// Field numbers of OpenAPIv2.proto.
namespace schema_field {
constexpr int ref = 1, format = 2, description = 4, required = 19, additional_properties = 21,
              type = 22, items = 23, properties = 25, vendor_extension = 31;
}

std::string named(const std::string& name, const std::string& value) {
    Message m;
    m.bytes(1, name);
    m.bytes(2, value);
    return m.str();
}

// A vendor extension's value is carried as YAML text; JSON is YAML.
std::string named_any(const std::string& name, const Json& value) {
    Message any;
    any.bytes(2, value.dump());
    return named(name, any.str());
}

std::string encode_schema(const Json& s) {
    using namespace schema_field;
    Message m;
    if (auto it = s.find("$ref"); it != s.end())
        m.bytes(ref, it->get<std::string>());
    if (auto it = s.find("format"); it != s.end())
        m.bytes(format, it->get<std::string>());
    if (auto it = s.find("description"); it != s.end())
        m.bytes(description, it->get<std::string>());
    if (auto it = s.find("required"); it != s.end())
        for (const auto& r : *it)
            m.bytes(required, r.get<std::string>());
    if (auto it = s.find("additionalProperties"); it != s.end()) {
        Message item;
        if (it->is_boolean())
            item.boolean(2, it->get<bool>());
        else
            item.bytes(1, encode_schema(*it));
        m.bytes(additional_properties, item.str());
    }
    if (auto it = s.find("type"); it != s.end()) {
        Message item;
        for (const auto& t : it->is_array() ? *it : Json::array({*it}))
            item.bytes(1, t.get<std::string>());
        m.bytes(type, item.str());
    }
    if (auto it = s.find("items"); it != s.end()) {
        Message item;
        for (const auto& sub : it->is_array() ? *it : Json::array({*it}))
            item.bytes(1, encode_schema(sub));
        m.bytes(items, item.str());
    }
    if (auto it = s.find("properties"); it != s.end()) {
        Message props;
        for (const auto& [name, sub] : it->items())
            props.bytes(1, named(name, encode_schema(sub)));
        m.bytes(properties, props.str());
    }
    for (const auto& [key, value] : s.items())
        if (key.rfind("x-", 0) == 0)
            m.bytes(vendor_extension, named_any(key, value));
    return m.str();
}

} // namespace

std::string openapi_v2_protobuf(const Json& v2) {
    Message info;
    info.bytes(1, v2["info"].value("title", ""));
    info.bytes(2, v2["info"].value("version", ""));
    Message defs;
    for (const auto& [name, schema] : v2["definitions"].items())
        defs.bytes(1, named(name, encode_schema(schema)));
    Message doc;
    doc.bytes(1, v2.value("swagger", "2.0"));
    doc.bytes(2, info.str());
    doc.bytes(8, Message().str());
    doc.bytes(9, defs.str());
    return doc.str();
}

} // namespace kprov::sim
