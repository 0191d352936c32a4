#include "cli/yaml_output.hpp"

#include "engine/error.hpp"
#include "yaml/yaml_scalars.hpp"

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace kprov::cli {
namespace {

using Json = nlohmann::ordered_json;

// Plain scalars YAML 1.2's core schema (and YAML 1.1 readers) would not read back as this string.
bool needs_quotes(const std::string& s) {
    return yaml::plain_reads_as_other_type(s);
}

void emit(YAML::Emitter& out, const Json& value) {
    switch (value.type()) {
    case Json::value_t::object:
        if (value.empty()) // "{}" on the key's line, not a lone "{}" below it
            out << YAML::Flow;
        out << YAML::BeginMap;
        for (const auto& [key, item] : value.items()) {
            out << YAML::Key << key << YAML::Value;
            emit(out, item);
        }
        out << YAML::EndMap;
        break;
    case Json::value_t::array:
        if (value.empty())
            out << YAML::Flow;
        out << YAML::BeginSeq;
        for (const auto& item : value)
            emit(out, item);
        out << YAML::EndSeq;
        break;
    case Json::value_t::string: {
        const auto& s = value.get_ref<const std::string&>();
        // A literal block always reads back with one final newline ("|" clips), so only text
        // that ends in exactly one takes that form; other multi-line text is double-quoted.
        const auto newline = s.find('\n');
        if (s.find('\x7f') != std::string::npos) {
            // yaml-cpp escapes the other control characters itself, DEL only with all of
            // non-ASCII: that for this scalar alone, so the text stays exact and terminal-safe.
            out.SetOutputCharset(YAML::EscapeNonAscii);
            out << YAML::DoubleQuoted << s;
            out.SetOutputCharset(YAML::EmitNonAscii);
        } else if (newline != std::string::npos && s.ends_with('\n') && !s.ends_with("\n\n"))
            out << YAML::Literal << s;
        else if (newline != std::string::npos)
            out << YAML::DoubleQuoted << s;
        else if (needs_quotes(s))
            out << YAML::DoubleQuoted << s;
        else
            out << s;
        break;
    }
    case Json::value_t::boolean:
        out << value.get<bool>();
        break;
    case Json::value_t::null:
        out << YAML::Null;
        break;
    default: // numbers: JSON's own text is valid YAML
        out << value.dump();
        break;
    }
}

} // namespace

std::string json_to_yaml(std::string_view json_text) {
    const Json value = Json::parse(json_text, nullptr, false);
    if (value.is_discarded())
        throw Error("internal error: cannot render a result as YAML: it is not JSON");
    YAML::Emitter out;
    out.SetIndent(2);
    out.SetSeqFormat(YAML::Block);
    out.SetMapFormat(YAML::Block);
    emit(out, value);
    return std::string(out.c_str()) + "\n";
}

} // namespace kprov::cli
