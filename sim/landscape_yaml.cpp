// YAML documents to JSON for --landscape files, read event by event with libyaml (no recursion:
// an explicit stack, bounded in depth; aliases refused, so nothing is expanded).

#include "landscape.hpp"

#include <cstdlib>
#include <memory>
#include <yaml.h>

namespace kprov::sim {

namespace {

constexpr std::size_t k_max_depth = 64;

bool all_digits(const std::string& s, std::size_t from) {
    if (from >= s.size())
        return false;
    for (std::size_t i = from; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

// A plain scalar as YAML 1.2's core schema reads it.
Json plain_scalar(const std::string& s) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
        return nullptr;
    if (s == "true" || s == "True" || s == "TRUE")
        return true;
    if (s == "false" || s == "False" || s == "FALSE")
        return false;
    std::size_t sign = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (all_digits(s, sign) && s.size() - sign <= 18)
        return std::stoll(s);
    bool number_chars = sign < s.size();
    bool digit = false;
    for (std::size_t i = sign; i < s.size(); ++i) {
        char c = s[i];
        digit = digit || (c >= '0' && c <= '9');
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
            number_chars = false;
    }
    if (number_chars && digit) {
        char* end = nullptr;
        double d = std::strtod(s.c_str(), &end);
        if (end && *end == '\0')
            return d;
    }
    return s;
}

struct Frame {
    Json value;
    bool is_map = false;
    std::string key;
    bool have_key = false;
};

struct ParserDeleter {
    void operator()(yaml_parser_t* p) const {
        yaml_parser_delete(p);
        delete p;
    }
};

} // namespace

std::vector<Json> yaml_documents(const std::string& text) {
    std::unique_ptr<yaml_parser_t, ParserDeleter> parser(new yaml_parser_t);
    if (!yaml_parser_initialize(parser.get()))
        throw std::runtime_error("cannot set up the YAML parser");
    yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
    std::vector<Json> docs;
    std::vector<Frame> stack;
    Json done;
    bool have_root = false;
    auto place = [&](Json v, std::size_t line) {
        if (stack.empty()) {
            done = std::move(v);
            have_root = true;
            return;
        }
        Frame& f = stack.back();
        if (!f.is_map) {
            f.value.push_back(std::move(v));
        } else if (!f.have_key) {
            if (!v.is_string() && !v.is_number() && !v.is_boolean())
                throw std::runtime_error("line " + std::to_string(line) +
                                         ": a mapping key must be a scalar");
            f.key = v.is_string() ? v.get<std::string>() : v.dump();
            f.have_key = true;
        } else {
            f.value[f.key] = std::move(v);
            f.have_key = false;
        }
    };
    while (true) {
        yaml_event_t event;
        if (!yaml_parser_parse(parser.get(), &event))
            throw std::runtime_error("line " + std::to_string(parser->problem_mark.line + 1) +
                                     ": " + (parser->problem ? parser->problem : "not YAML"));
        std::unique_ptr<yaml_event_t, void (*)(yaml_event_t*)> guard(&event, yaml_event_delete);
        std::size_t line = event.start_mark.line + 1;
        switch (event.type) {
        case YAML_STREAM_END_EVENT:
            return docs;
        case YAML_DOCUMENT_START_EVENT:
            have_root = false;
            done = nullptr;
            break;
        case YAML_DOCUMENT_END_EVENT:
            docs.push_back(have_root ? std::move(done) : Json());
            break;
        case YAML_ALIAS_EVENT:
            throw std::runtime_error("line " + std::to_string(line) +
                                     ": aliases are not supported in landscape files");
        case YAML_SCALAR_EVENT: {
            std::string value(reinterpret_cast<const char*>(event.data.scalar.value),
                              event.data.scalar.length);
            bool quoted = event.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
            std::string tag =
                event.data.scalar.tag ? reinterpret_cast<const char*>(event.data.scalar.tag) : "";
            place(quoted || tag == YAML_STR_TAG ? Json(value) : plain_scalar(value), line);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (stack.size() >= k_max_depth)
                throw std::runtime_error("line " + std::to_string(line) + ": nested deeper than " +
                                         std::to_string(k_max_depth) + " levels");
            stack.push_back(
                {event.type == YAML_MAPPING_START_EVENT ? Json::object() : Json::array(),
                 event.type == YAML_MAPPING_START_EVENT, "", false});
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            Json v = std::move(stack.back().value);
            stack.pop_back();
            place(std::move(v), line);
            break;
        }
        default:
            break;
        }
    }
}

} // namespace kprov::sim
