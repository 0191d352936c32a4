#pragma once
// How YAML 1.2's core schema types a plain scalar, by hand-written scanners: each is one pass
// over the text with no recursion and no backtracking (libstdc++'s regex matcher recursed
// once per character, so a 300,000-digit number overflowed the stack).

#include <string_view>

namespace kprov::yaml {

/// [-+]?[0-9]+
bool is_decimal_integer(std::string_view s);
/// 0o[0-7]+
bool is_octal_integer(std::string_view s);
/// 0x[0-9a-fA-F]+
bool is_hex_integer(std::string_view s);
/// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? (every decimal integer is one too)
bool is_decimal_number(std::string_view s);
/// [-+]?\.(inf|Inf|INF) or \.(nan|NaN|NAN)
bool is_special_float(std::string_view s);
/// null, ~, the empty text, true/false and YAML 1.1's yes/no/on/off/y/n in their three
/// spellings.
bool is_keyword(std::string_view s);
/// Whether `s` written as a plain scalar would be read back by a YAML 1.2 or 1.1 reader as
/// something other than this text (a number, a boolean, null): such text must be quoted.
bool plain_reads_as_other_type(std::string_view s);

} // namespace kprov::yaml
