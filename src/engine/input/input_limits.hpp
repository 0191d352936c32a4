#pragma once
// Bounds on what kprov reads from users: file sizes, nesting, string lengths, UTF-8. Shared by
// every reader (runtime and upgrade files, the config file, GraphQL requests) so that one input
// is refused or accepted alike whichever way it comes in.

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprov {

/// How deeply arrays and objects may nest in a document kprov reads (GraphQL variables, a
/// runtime file, a config file): a scalar is 0, `{}` is 1. Deeper values are refused before
/// anything walks them recursively (nlohmann's dump and copy, yaml-cpp's emitter do).
inline constexpr std::size_t k_max_input_nesting = 64;

/// The largest runtime or upgrade file (or stdin) kprov reads.
inline constexpr std::size_t k_max_runtime_file_bytes = 4u << 20;

/// The largest config file kprov reads.
inline constexpr std::size_t k_max_config_file_bytes = 1u << 20;

/// "4 MiB", "512 KiB", "210 MB", "4194305 bytes": a size as messages show it. Multiples of
/// 1024 in binary units, sizes from 10 MB on in decimal ones (rounded down), others exactly,
/// so that a size just above a limit never reads as the limit itself.
std::string describe_size(std::size_t bytes);

/// The content of the file `path` ("-": stdin), read without ever holding more than `limit`
/// bytes. Only a regular file is read: it is opened without blocking and its kind taken from
/// the open descriptor, so a FIFO, device, socket or directory is refused at once, naming what
/// it is; one larger than `limit` is refused before it is read. Stdin is read until `limit` + 1
/// bytes have come. `what` names the file in the size message. Throws ValidationError "<what>
/// <path>: 210 MB is more than the 4 MiB limit", and Error "cannot read <path>: ...".
std::string read_bounded_file(const std::string& path, std::size_t limit, std::string_view what);

/// The length (1 to 4) of the well-formed UTF-8 sequence at `text[at]`; 0 when the bytes there
/// are not one. `at` must be inside `text`.
std::size_t utf8_length_at(std::string_view text, std::size_t at);

/// The offset of the first byte of `text` that is not part of well-formed UTF-8 (overlong
/// forms, surrogates and code points above U+10FFFF are not); nullopt when all of it is.
std::optional<std::size_t> invalid_utf8_at(std::string_view text);

/// A member name as a field path shows it: bytes that are not UTF-8 and control characters as
/// \xNN, a name longer than 40 bytes cut short with "...", so a path never carries hostile text.
std::string input_path_segment(std::string_view key);

/// `base` followed by `segments` (input_path_segment()s, or "[3]" for list items), joined with
/// dots; beyond the twelfth segment only their number is given ("a.b.c.d.e.f.g.h.i.j.k.l (and 52
/// levels below)").
std::string input_path(const std::string& base, const std::vector<std::string>& segments);

/// The first problem of `value` against the input bounds, walked without recursion: nesting
/// deeper than `max_nesting`, or a string (member names too) that is not UTF-8. `path` is
/// where `value` is ("runtimeInput.labels"); the result names the value's path and the problem
/// ("runtimeInput.labels.a.b: nests deeper than 64 levels of objects and lists", "labels.x:
/// invalid UTF-8 at byte 3"), never the text itself. nullopt when there is none.
struct InputProblem {
    std::string path;
    std::string message;
};
std::optional<InputProblem> input_bounds_problem(const nlohmann::json& value,
                                                 const std::string& path,
                                                 std::size_t max_nesting = k_max_input_nesting);

} // namespace kprov
