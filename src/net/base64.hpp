#pragma once
// Base64 (RFC 4648, standard alphabet) on OpenSSL's EVP block coder: kubeconfig *-data fields,
// adminkubeconfig answers, Secret data, HTTP Basic credentials and stored secrets.

#include <optional>
#include <string>
#include <string_view>

namespace kprov::net {

/// `bytes` in base64 with padding.
std::string base64_encode(std::string_view bytes);

/// Decodes `text`, ignoring whitespace anywhere; the final padding may be left out. nullopt when
/// `text` holds a character outside the alphabet, '=' other than at the end, more than two '=',
/// or a length that no encoder produces.
std::optional<std::string> base64_decode(std::string_view text);

/// Decodes only the one spelling base64_encode() gives: padded, no whitespace, zero bits under
/// the padding. nullopt when `text` is anything else; then `problem` (when given) says what is
/// wrong by position and length ("length 18 is not a multiple of 4"), never quoting `text`,
/// which may be a secret.
std::optional<std::string> base64_decode_strict(std::string_view text,
                                                std::string* problem = nullptr);

} // namespace kprov::net
