#pragma once
// Encryption of secrets at rest (kubeconfigs, administrators, Kyma secret overrides).
//
// Two formats:
//  - legacy, the original provisioner's (original-provisioner.md §5.5):
//    Base64Std(iv16 || AES-CFB128(key, iv, Base64Std(plaintext))); read only.
//  - "v2:" + Base64Std(iv12 || AES-256-GCM(k, iv, plaintext, aad=context) || tag16), written by
//    kprov; k = HKDF-SHA256(key, info "kprov secret v2"), so 16/24/32-byte keys all give AES-256.
//    The context (e.g. "cluster.kubeconfig:<id>") binds a value to its place: a ciphertext
//    copied to another row does not decrypt.

#include <optional>
#include <string>
#include <string_view>

namespace kprov::stores {

class SecretCipher {
public:
    /// `key` is the raw text of APP_DATABASE_SECRET_KEY. Throws ConfigError unless it is 16, 24
    /// or 32 bytes long.
    explicit SecretCipher(std::string key);

    /// A cipher with no key, for a store opened for schema work only: encrypt, decrypt and
    /// encrypt_legacy throw ConfigError naming APP_DATABASE_SECRET_KEY, so a secret is never
    /// read or written in plaintext by mistake.
    static SecretCipher without_key();

    /// Always the v2 format. Thread-safe.
    std::string encrypt(std::string_view plaintext, std::string_view context) const;

    /// Reads both formats. Throws StoreError when the value is malformed, was encrypted with
    /// another key, or (v2) was tampered with or belongs to another context, and when it is in
    /// the legacy format while old formats are refused (refuse_old_formats). Thread-safe.
    std::string decrypt(std::string_view stored, std::string_view context) const;

    /// As decrypt(), but reads the legacy format even while old formats are refused: for
    /// rewriting old values in the current format (re_encrypt.hpp). Thread-safe.
    std::string decrypt_any(std::string_view stored, std::string_view context) const;

    /// A secret the original stored in plaintext (its "encrypted" flag unset), returned as is;
    /// throws StoreError while old formats are refused. Thread-safe.
    std::string plaintext(std::string stored, std::string_view context) const;

    /// Whether `stored` is in the current (v2) format; says nothing of its key or integrity.
    static bool is_current(std::string_view stored);

    /// With `refuse` (KPROV_REFUSE_LEGACY_SECRETS), reads of legacy and plaintext secrets throw
    /// StoreError naming the setting and `kprov migrate --re-encrypt`. Not thread-safe: set it
    /// before the cipher is shared.
    void refuse_old_formats(bool refuse) { m_refuse_old_formats = refuse; }

    /// The original's format, for interoperability tests and tools. Thread-safe.
    std::string encrypt_legacy(std::string_view plaintext) const;

private:
    SecretCipher() = default;
    /// Throws ConfigError for a cipher from without_key().
    void require_key() const;

    std::string m_key;     // raw key (legacy format); empty without a key
    std::string m_gcm_key; // 32 bytes derived for v2
    bool m_refuse_old_formats = false;
};

/// Reads the key file beside a local database; nullopt when it does not exist. Throws
/// ConfigError if it holds a key of a wrong length, others may access it, it is a symbolic link,
/// or it is owned by a user other than the effective one or root; StoreError if it cannot be
/// read.
std::optional<std::string> load_key_file(const std::string& path);

/// As load_key_file(), but creates the file (mode 0600, 32 random printable bytes) when it does
/// not exist; of processes creating it at once, all get the one key that was published first.
/// Throws StoreError if it cannot be written.
std::string load_or_create_key_file(const std::string& path);

/// Standard base64 with padding (shared by both formats and tests).
std::string base64_encode(std::string_view bytes);
/// Throws StoreError on characters outside the standard alphabet or wrong padding.
std::string base64_decode(std::string_view text);

} // namespace kprov::stores
