#include "engine/input/input_limits.hpp"

#include "engine/error.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace kprov {

using nlohmann::json;

// RFC 3629: the second byte's range depends on the first, which rules out overlong forms,
// surrogates and code points beyond U+10FFFF.
std::size_t utf8_length_at(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) {
        return static_cast<unsigned char>(text[k]);
    };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80)
        return 1;
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF)
        length = 2;
    else if (b0 >= 0xE0 && b0 <= 0xEF) {
        length = 3;
        low = b0 == 0xE0 ? 0xA0 : 0x80;
        high = b0 == 0xED ? 0x9F : 0xBF;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        length = 4;
        low = b0 == 0xF0 ? 0x90 : 0x80;
        high = b0 == 0xF4 ? 0x8F : 0xBF;
    } else
        return 0;
    if (i + length > text.size())
        return 0;
    if (byte(i + 1) < low || byte(i + 1) > high)
        return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
            return 0;
    return length;
}

std::string input_path_segment(std::string_view key) {
    constexpr std::size_t k_max = 40;
    std::string out;
    std::size_t i = 0;
    while (i < key.size() && out.size() < k_max) {
        const std::size_t n = utf8_length_at(key, i);
        const auto b = static_cast<unsigned char>(key[i]);
        if (n == 0 || b < 0x20 || b == 0x7F) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", b);
            out += hex;
            ++i;
            continue;
        }
        out.append(key.substr(i, n));
        i += n;
    }
    if (i < key.size())
        out += "...";
    return out;
}

std::string input_path(const std::string& base, const std::vector<std::string>& segments) {
    constexpr std::size_t k_shown = 12;
    std::string out = base;
    for (std::size_t i = 0; i < segments.size() && i < k_shown; ++i) {
        const bool index = segments[i].starts_with('[');
        out += (out.empty() || index ? "" : ".") + segments[i];
    }
    if (segments.size() > k_shown)
        out += " (and " + std::to_string(segments.size() - k_shown) + " levels below)";
    return out;
}

namespace {

std::string invalid_utf8_message(std::size_t at) {
    return "invalid UTF-8 at byte " + std::to_string(at);
}

} // namespace

std::string describe_size(std::size_t bytes) {
    constexpr std::size_t k_kib = 1024, k_mib = k_kib * 1024;
    if (bytes >= k_mib && bytes % k_mib == 0)
        return std::to_string(bytes / k_mib) + " MiB";
    if (bytes >= k_kib && bytes % k_kib == 0)
        return std::to_string(bytes / k_kib) + " KiB";
    // Rounded, a size just above a limit would read as the limit itself ("4 MB").
    if (bytes >= 10'000'000'000)
        return std::to_string(bytes / 1'000'000'000) + " GB";
    if (bytes >= 10'000'000)
        return std::to_string(bytes / 1'000'000) + " MB";
    return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

namespace {

// What a file that is not a regular file is, for a message.
const char* kind_of_file(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "not a regular file";
}

// Closes the descriptor it holds.
struct Descriptor {
    int fd = -1;
    ~Descriptor() {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

std::string read_bounded_file(const std::string& path, std::size_t limit, std::string_view what) {
    const std::string shown = path == "-" ? "<stdin>" : path;
    const auto too_large = [&](const std::string& size) {
        return ValidationError("", std::string(what) + " " + shown + ": " + size +
                                       "more than the " + describe_size(limit) + " limit");
    };
    if (path == "-") { // a pipe has no size: stop at limit + 1
        std::string text;
        char buffer[64 * 1024];
        while (text.size() <= limit) {
            std::cin.read(buffer, static_cast<std::streamsize>(
                                      std::min(sizeof buffer, limit + 1 - text.size())));
            text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
            if (std::cin.gcount() == 0 || !std::cin)
                break;
        }
        if (std::cin.bad())
            throw Error("cannot read " + shown + ": " + std::strerror(errno));
        if (text.size() > limit)
            throw too_large("");
        return text;
    }
    // Opened without blocking (a FIFO's open waits for a writer; a device may do anything),
    // then only a regular file is read: the kind is taken from the open descriptor, so a file
    // swapped after a check cannot slip through.
    Descriptor file;
    file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (file.fd < 0)
        throw Error("cannot read " + shown + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(file.fd, &st) != 0)
        throw Error("cannot read " + shown + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw Error("cannot read " + shown + ": it is " + kind_of_file(st.st_mode) +
                    " (expected a regular file)");
    if (static_cast<std::uintmax_t>(st.st_size) > limit)
        throw too_large(describe_size(static_cast<std::size_t>(st.st_size)) + " is ");
    ::fcntl(file.fd, F_SETFL, ::fcntl(file.fd, F_GETFL) & ~O_NONBLOCK);
    // A file may grow after the check: stop at limit + 1.
    std::string text;
    char buffer[64 * 1024];
    while (text.size() <= limit) {
        const ssize_t n = ::read(file.fd, buffer, std::min(sizeof buffer, limit + 1 - text.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw Error("cannot read " + shown + ": " + std::strerror(errno));
        if (n == 0)
            break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    if (text.size() > limit)
        throw too_large("");
    return text;
}

std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8_length_at(text, i);
        if (n == 0)
            return i;
        i += n;
    }
    return std::nullopt;
}

std::optional<InputProblem> input_bounds_problem(const json& value, const std::string& path,
                                                 std::size_t max_nesting) {
    // Depth-first with an explicit stack. Every value visited is a node that knows its parent
    // and how it is named there, so a path is only spelled out for a problem.
    struct Node {
        const json* value;
        std::size_t parent;     // index in `nodes`; npos for the root
        const std::string* key; // the member name, or nullptr for a list element
        std::size_t index;      // the element's index
        std::size_t depth;      // containers around the value
    };
    constexpr std::size_t k_root = static_cast<std::size_t>(-1);
    std::vector<Node> nodes = {{&value, k_root, nullptr, 0, 0}};
    std::vector<std::size_t> todo = {0};
    const auto path_of = [&](std::size_t at) {
        std::vector<std::string> segments;
        for (; at != k_root && nodes[at].parent != k_root; at = nodes[at].parent)
            segments.push_back(nodes[at].key ? input_path_segment(*nodes[at].key)
                                             : "[" + std::to_string(nodes[at].index) + "]");
        return input_path(path, {segments.rbegin(), segments.rend()});
    };
    while (!todo.empty()) {
        const std::size_t at = todo.back();
        todo.pop_back();
        const json& v = *nodes[at].value;
        if (v.is_string()) {
            if (const auto bad = invalid_utf8_at(v.get_ref<const std::string&>()))
                return InputProblem{path_of(at), invalid_utf8_message(*bad)};
            continue;
        }
        if (!v.is_structured())
            continue;
        const std::size_t depth = nodes[at].depth + 1;
        if (depth > max_nesting)
            return InputProblem{path_of(at), "nests deeper than " + std::to_string(max_nesting) +
                                                 " levels of objects and lists"};
        std::size_t index = 0;
        for (auto it = v.begin(); it != v.end(); ++it, ++index) {
            const std::string* key = nullptr;
            if (v.is_object()) {
                key = &it.key();
                if (const auto bad = invalid_utf8_at(*key))
                    return InputProblem{path_of(at),
                                        "a member name has " + invalid_utf8_message(*bad)};
            }
            nodes.push_back({&*it, at, key, index, depth});
            todo.push_back(nodes.size() - 1);
        }
    }
    return std::nullopt;
}

} // namespace kprov
