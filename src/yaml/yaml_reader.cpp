#include "yaml/yaml_reader.hpp"

#include "yaml/event_cost.hpp"
#include "yaml/yaml_scalars.hpp"

#include <charconv>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

namespace kprov::yaml {
namespace {

using nlohmann::json;

const std::string k_str = "tag:yaml.org,2002:str";
const std::string k_int = "tag:yaml.org,2002:int";
const std::string k_float = "tag:yaml.org,2002:float";
const std::string k_bool = "tag:yaml.org,2002:bool";
const std::string k_null = "tag:yaml.org,2002:null";

std::string where(const Mark& mark) {
    return "line " + std::to_string(mark.line) + ", column " + std::to_string(mark.column);
}

Mark mark_of(const yaml_mark_t& mark) {
    return {mark.line + 1, mark.column + 1};
}

std::string text_of(const yaml_char_t* text) {
    return text ? reinterpret_cast<const char*>(text) : "";
}

bool is_null_text(std::string_view s) {
    return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> bool_text(std::string_view s) {
    if (s == "true" || s == "True" || s == "TRUE")
        return true;
    if (s == "false" || s == "False" || s == "FALSE")
        return false;
    return std::nullopt;
}

std::optional<json> integer_text(const std::string& s) {
    const auto convert = [&](std::size_t skip, int base) -> std::optional<json> {
        const char* begin = s.data() + skip;
        const char* end = s.data() + s.size();
        if (*begin == '+')
            ++begin;
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, value, base);
        if (ec == std::errc() && ptr == end)
            return json(value);
        if (ec == std::errc::result_out_of_range) // beyond 64 bits: what a JSON reader keeps
            return json(std::strtod(s.c_str(), nullptr));
        return std::nullopt;
    };
    if (is_decimal_integer(s))
        return convert(0, 10);
    if (is_octal_integer(s))
        return convert(2, 8);
    if (is_hex_integer(s))
        return convert(2, 16);
    return std::nullopt;
}

std::optional<json> plain_value(const std::string& s) {
    if (is_null_text(s))
        return json(nullptr);
    if (const auto b = bool_text(s))
        return json(*b);
    if (auto i = integer_text(s))
        return i;
    if (is_decimal_number(s))
        return json(std::strtod(s.c_str(), nullptr));
    return std::nullopt;
}

// The name of the bound a CostCounter message breaks.
std::string bound_of(const std::string& breach) {
    if (breach.rfind("nests deeper", 0) == 0)
        return "max_depth";
    if (breach.find(" nodes ") != std::string::npos)
        return "max_nodes";
    if (breach.find(" of text ") != std::string::npos)
        return "max_expanded_bytes";
    return {}; // an alias inside the node it names
}

Bounds effective(const Bounds& given) {
    const auto pick = [](std::size_t value, std::size_t fallback) {
        return value ? value : fallback;
    };
    return {pick(given.max_text_bytes, k_foreign_bounds.max_text_bytes),
            pick(given.max_depth, k_foreign_bounds.max_depth),
            pick(given.max_nodes, k_foreign_bounds.max_nodes),
            pick(given.max_expanded_bytes, k_foreign_bounds.max_expanded_bytes)};
}

// A built node and, for a scalar, its text (a key needs it even when the value is typed).
struct Built {
    json value;
    std::optional<std::string> text;
    Mark mark;
    std::size_t bytes = 0; // of its scalars, aliases expanded
};

// A mapping or sequence being built.
struct Frame {
    json value;
    std::string path;
    std::string pointer; // as a JSON pointer, when marks are recorded
    std::string anchor;
    Mark mark;
    std::size_t bytes = 0;
    bool discard = false; // a mapping or sequence used as a key: built, then dropped
    // A mapping's entry in progress.
    bool have_key = false;
    bool key_usable = false;
    std::string key;
    Mark key_mark;
    std::unordered_map<std::string, std::size_t> key_lines;
};

class Builder {
public:
    explicit Builder(const ReadOptions& options)
        : m_options(options) {}

    void event(const yaml_event_t& e) {
        switch (e.type) {
        case YAML_DOCUMENT_START_EVENT:
            m_anchors.clear();
            m_root.reset();
            m_document_mark = mark_of(e.end_mark);
            return;
        case YAML_DOCUMENT_END_EVENT:
            m_out.documents.push_back(m_root ? std::move(m_root->value) : json(nullptr));
            m_out.marks.push_back(m_root ? m_root->mark : m_document_mark);
            m_out.value_marks.push_back(std::move(m_marks));
            m_marks.clear();
            m_root.reset();
            return;
        case YAML_SCALAR_EVENT:
            scalar(e);
            return;
        case YAML_ALIAS_EVENT:
            alias(e);
            return;
        case YAML_SEQUENCE_START_EVENT:
            open(json::array(), text_of(e.data.sequence_start.anchor), mark_of(e.start_mark));
            return;
        case YAML_MAPPING_START_EVENT:
            open(json::object(), text_of(e.data.mapping_start.anchor), mark_of(e.start_mark));
            return;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            close();
            return;
        default:
            return;
        }
    }

    Documents take() { return std::move(m_out); }

private:
    // The path of the value that comes next inside the innermost open node.
    std::string child_path() const {
        const Frame& top = m_stack.back();
        if (top.value.is_array())
            return top.path + "[" + std::to_string(top.value.size()) + "]";
        if (!top.have_key)
            return top.path;
        return top.path.empty() ? top.key : top.path + "." + top.key;
    }

    std::string child_pointer() const {
        const Frame& top = m_stack.back();
        if (top.value.is_array())
            return top.pointer + "/" + std::to_string(top.value.size());
        std::string escaped;
        for (const char c : top.key)
            escaped += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
        return top.pointer + "/" + escaped;
    }

    // Where the value that comes next inside the innermost open node (or the root) begins.
    void record(Mark mark) {
        if (m_options.record_marks)
            m_marks[m_stack.empty() ? std::string() : child_pointer()] = mark;
    }

    std::string next_path() const { return m_stack.empty() ? std::string() : child_path(); }

    void problem(std::string path, Mark mark, std::string message) {
        if (m_out.problems.size() < k_max_value_problems)
            m_out.problems.push_back({std::move(path), mark, std::move(message)});
        else
            m_out.more_problems = true;
    }

    void open(json value, std::string anchor, Mark mark) {
        Frame frame;
        frame.value = std::move(value);
        frame.anchor = std::move(anchor);
        frame.mark = mark;
        if (!m_stack.empty()) {
            const Frame& top = m_stack.back();
            frame.discard = top.discard || (top.value.is_object() && !top.have_key);
            if (!frame.discard) {
                frame.path = child_path();
                if (m_options.record_marks)
                    frame.pointer = child_pointer();
            }
        }
        m_stack.push_back(std::move(frame));
    }

    void close() {
        Frame frame = std::move(m_stack.back());
        m_stack.pop_back();
        Built built{std::move(frame.value), std::nullopt, frame.mark, frame.bytes};
        if (!frame.anchor.empty())
            remember(frame.anchor, built);
        place(std::move(built));
    }

    void scalar(const yaml_event_t& e) {
        const auto& s = e.data.scalar;
        std::string text(reinterpret_cast<const char*>(s.value), s.length);
        const Mark mark = mark_of(e.start_mark);
        const bool plain = s.style == YAML_PLAIN_SCALAR_STYLE;
        const std::string tag = text_of(s.tag);
        json value;
        if (m_options.scalars == Scalars::AsWritten) {
            value = plain && tag.empty() && is_null_text(text) ? json(nullptr) : json(text);
        } else {
            value = typed(text, tag, plain, mark);
        }
        const std::size_t bytes = text.size();
        Built built{std::move(value), std::move(text), mark, bytes};
        if (s.anchor)
            remember(text_of(s.anchor), built);
        place(std::move(built));
    }

    json typed(const std::string& text, const std::string& tag, bool plain, Mark mark) {
        const auto untagged = [&] {
            if (plain)
                if (auto value = plain_value(text))
                    return std::move(*value);
            return json(text);
        };
        if (tag.empty())
            return untagged();
        if (tag == "!" || tag == k_str)
            return json(text);
        std::optional<json> value;
        if (tag == k_bool) {
            if (const auto b = bool_text(text))
                value = *b;
        } else if (tag == k_int) {
            value = integer_text(text);
        } else if (tag == k_float) {
            value = integer_text(text);
            if (!value && is_decimal_number(text))
                value = json(std::strtod(text.c_str(), nullptr));
        } else if (tag == k_null) {
            if (is_null_text(text))
                value = nullptr;
        } else {
            problem(next_path(), mark, "has the tag " + tag + ", which kprov does not know");
            return untagged();
        }
        if (!value) {
            problem(next_path(), mark,
                    "is not a valid " + tag.substr(tag.rfind(':') + 1) + ": \"" + text + "\"");
            return json(nullptr);
        }
        return std::move(*value);
    }

    void alias(const yaml_event_t& e) {
        const std::string name = text_of(e.data.alias.anchor);
        const auto found = m_anchors.find(name);
        if (found == m_anchors.end())
            throw ReadError(mark_of(e.start_mark), "the alias *" + name + " names no anchor", "");
        Built copy = found->second; // bounded: the counter has counted its expansion
        copy.mark = mark_of(e.start_mark);
        place(std::move(copy));
    }

    // An anchored node is kept for its aliases: a copy, so the copies count against the bytes
    // aliases may expand to as well (nested anchors would otherwise hold one copy per level).
    void remember(const std::string& anchor, const Built& built) {
        m_anchor_bytes += built.bytes;
        const std::size_t bound = m_options.bounds.max_expanded_bytes;
        if (m_anchor_bytes > bound)
            throw ReadError(built.mark,
                            "anchors hold more than " + detail::describe_bytes(bound) +
                                " of text (anchors nested too often)",
                            "max_expanded_bytes");
        m_anchors[anchor] = built;
    }

    void place(Built built) {
        if (m_stack.empty()) {
            record(built.mark);
            m_root = std::move(built);
            return;
        }
        Frame& top = m_stack.back();
        top.bytes += built.bytes;
        if (top.discard)
            return;
        if (top.value.is_array()) {
            record(built.mark);
            top.value.push_back(std::move(built.value));
            return;
        }
        if (!top.have_key) {
            top.have_key = true;
            top.key_mark = built.mark;
            top.key_usable = built.text.has_value();
            top.key = built.text ? *built.text : std::string();
            if (!top.key_usable)
                problem(top.path, built.mark, "has a key that is not text");
            return;
        }
        top.have_key = false;
        if (!top.key_usable)
            return;
        auto [first, inserted] = top.key_lines.emplace(top.key, top.key_mark.line);
        if (inserted || m_options.duplicate_keys == DuplicateKeys::LastWins) {
            record(built.mark);
            top.value[top.key] = std::move(built.value);
            return;
        }
        const std::string path = top.path.empty() ? top.key : top.path + "." + top.key;
        problem(path, top.key_mark,
                "is given twice (first at line " + std::to_string(first->second) + ")");
    }

    const ReadOptions& m_options;
    std::vector<Frame> m_stack;
    std::unordered_map<std::string, Built> m_anchors;
    std::optional<Built> m_root;
    std::size_t m_anchor_bytes = 0;
    std::unordered_map<std::string, Mark> m_marks;
    Mark m_document_mark;
    Documents m_out;
};

// libyaml's parser, deleted however the read ends.
struct ParserDeleter {
    void operator()(yaml_parser_t* parser) const {
        yaml_parser_delete(parser);
        delete parser;
    }
};

} // namespace

ReadError::ReadError(Mark mark, std::string message, std::string bound)
    : Error(message + " (" + where(mark) + ")")
    , m_mark(mark)
    , m_message(std::move(message))
    , m_bound(std::move(bound)) {}

Documents read_documents(std::string_view text, const ReadOptions& given) {
    ReadOptions options = given;
    options.bounds = effective(given.bounds);
    if (auto problem = text_problem(text, options.bounds))
        throw ReadError(Mark{problem->line, 1}, std::move(problem->message),
                        problem->message.rfind("is ", 0) == 0 ? "max_text_bytes" : "");
    std::unique_ptr<yaml_parser_t, ParserDeleter> parser(new yaml_parser_t);
    if (!yaml_parser_initialize(parser.get()))
        throw Error("out of memory");
    yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
    detail::CostCounter counter(options.bounds);
    Builder builder(options);
    for (;;) {
        yaml_event_t event;
        if (!yaml_parser_parse(parser.get(), &event)) {
            std::string message = parser->problem ? parser->problem : "not YAML";
            if (parser->context)
                message = std::string(parser->context) + ": " + message;
            throw ReadError(mark_of(parser->problem_mark), std::move(message), "");
        }
        std::unique_ptr<yaml_event_t, void (*)(yaml_event_t*)> owned(&event, yaml_event_delete);
        // Counted before it is built: an alias is expanded only once its cost is known to fit.
        if (std::string breach = counter.add(event); !breach.empty()) {
            std::string bound = bound_of(breach);
            if (bound.empty()) { // a cycle: it would nest without end
                breach = "nests deeper than " + std::to_string(options.bounds.max_depth) +
                         " levels of mappings and sequences (" + breach + ")";
                bound = "max_depth";
            }
            throw ReadError(mark_of(event.start_mark), std::move(breach), std::move(bound));
        }
        builder.event(event);
        if (event.type == YAML_STREAM_END_EVENT)
            break;
    }
    return builder.take();
}

} // namespace kprov::yaml
