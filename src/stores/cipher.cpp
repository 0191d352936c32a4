#include "stores/cipher.hpp"

#include "engine/error.hpp"
#include "net/base64.hpp"
#include "stores/store_common.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace kprov::stores {

namespace {

constexpr std::string_view k_v2_prefix = "v2:";
constexpr std::string_view k_hkdf_info = "kprov secret v2";
constexpr std::size_t k_gcm_key_size = 32;
constexpr std::size_t k_gcm_iv_size = 12;
constexpr std::size_t k_gcm_tag_size = 16;
constexpr std::size_t k_legacy_iv_size = 16;
// 24 random bytes are 32 base64 characters: an AES-256 key made only of printable characters.
constexpr std::size_t k_key_file_random_bytes = 24;
// Anything longer is certainly not a key; the cap keeps a mistaken path from being slurped whole.
constexpr std::size_t k_key_file_max_read = 4096;

constexpr std::string_view k_tampered = "cannot decrypt a secret: wrong key or tampered value";

[[noreturn]] void refuse_old_format(std::string_view format, std::string_view context) {
    // The context names the column and row (never the value), so the user can find the row.
    throw StoreError("the secret " + std::string(context) + " is stored " + std::string(format) +
                     ", which KPROV_REFUSE_LEGACY_SECRETS=true refuses; run `kprov migrate "
                     "--re-encrypt` to rewrite old secrets in the authenticated format");
}

bool valid_key_size(std::size_t size) {
    return size == 16 || size == 24 || size == 32;
}

const unsigned char* bytes_of(std::string_view s) {
    return reinterpret_cast<const unsigned char*>(s.data());
}

// OpenSSL reports its failures on a per-thread queue; draining it here keeps a stale entry from
// being blamed on some later, unrelated OpenSSL call in the same thread.
[[noreturn]] void throw_openssl_failure(std::string_view what) {
    std::string reason;
    while (const unsigned long code = ERR_get_error()) {
        if (reason.empty()) {
            std::array<char, 256> text{};
            ERR_error_string_n(code, text.data(), text.size());
            reason = text.data();
        }
    }
    throw StoreError("OpenSSL failed to " + std::string(what) +
                     (reason.empty() ? std::string() : " (" + reason + ")"));
}

std::string random_bytes(std::size_t count) {
    std::string out(count, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(count)) != 1)
        throw_openssl_failure("generate random bytes");
    return out;
}

int checked_int(std::size_t size) {
    // EVP lengths are ints; secrets are kilobytes, so this only guards against misuse.
    if (size > static_cast<std::size_t>(INT_MAX))
        throw StoreError("a secret of " + std::to_string(size) + " bytes is too large to encrypt");
    return static_cast<int>(size);
}

struct CipherCtxFree {
    void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
struct KdfFree {
    void operator()(EVP_KDF* kdf) const { EVP_KDF_free(kdf); }
};
struct KdfCtxFree {
    void operator()(EVP_KDF_CTX* ctx) const { EVP_KDF_CTX_free(ctx); }
};

enum class Direction : int { decrypt = 0, encrypt = 1 };

// The GCM-only inputs of one cipher pass. `tag` is read when decrypting and written when
// encrypting.
struct GcmParams {
    std::string_view aad;
    std::string& tag;
};

// One encryption or decryption with a fresh EVP context, shared by both formats so the EVP
// call sequence (and its error handling) exists once. Both formats use stream modes, so the
// output is exactly as long as the input.
std::string run_cipher(const EVP_CIPHER* cipher, Direction direction, std::string_view key,
                       std::string_view iv, std::string_view input, const GcmParams* gcm) {
    const std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree> ctx(EVP_CIPHER_CTX_new());
    if (!ctx)
        throw_openssl_failure("allocate a cipher context");
    const int enc = static_cast<int>(direction);
    // Two-step init: GCM's IV length must be set before the IV itself is given.
    if (EVP_CipherInit_ex(ctx.get(), cipher, nullptr, nullptr, nullptr, enc) != 1)
        throw_openssl_failure("initialise a cipher");
    if (gcm && EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, checked_int(iv.size()),
                                   nullptr) != 1)
        throw_openssl_failure("set the GCM IV length");
    if (EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, bytes_of(key), bytes_of(iv), enc) != 1)
        throw_openssl_failure("set the cipher key");

    int len = 0;
    if (gcm && !gcm->aad.empty() &&
        EVP_CipherUpdate(ctx.get(), nullptr, &len, bytes_of(gcm->aad),
                         checked_int(gcm->aad.size())) != 1)
        throw_openssl_failure("add the authenticated context");

    std::string out(input.size() + EVP_MAX_BLOCK_LENGTH, '\0');
    auto* out_bytes = reinterpret_cast<unsigned char*>(out.data());
    int written = 0;
    if (!input.empty()) {
        if (EVP_CipherUpdate(ctx.get(), out_bytes, &len, bytes_of(input),
                             checked_int(input.size())) != 1)
            throw_openssl_failure("run the cipher");
        written = len;
    }
    if (gcm && direction == Direction::decrypt &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, checked_int(gcm->tag.size()),
                            gcm->tag.data()) != 1)
        throw_openssl_failure("set the GCM tag");
    if (EVP_CipherFinal_ex(ctx.get(), out_bytes + written, &len) != 1) {
        if (gcm && direction == Direction::decrypt) {
            // A tag mismatch is the expected way a wrong key or a modified value shows up;
            // it is not an OpenSSL malfunction, so its queue entries (if any) are dropped.
            ERR_clear_error();
            OPENSSL_cleanse(out.data(), out.size());
            throw StoreError(std::string(k_tampered));
        }
        throw_openssl_failure("finish the cipher");
    }
    written += len;
    out.resize(static_cast<std::size_t>(written));

    if (gcm && direction == Direction::encrypt) {
        gcm->tag.assign(k_gcm_tag_size, '\0');
        if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, checked_int(k_gcm_tag_size),
                                gcm->tag.data()) != 1)
            throw_openssl_failure("read the GCM tag");
    }
    return out;
}

// The original picks AES-128/192/256 from the key length, as Go's aes.NewCipher does.
const EVP_CIPHER* legacy_cipher(std::size_t key_size) {
    switch (key_size) {
    case 16:
        return EVP_aes_128_cfb128();
    case 24:
        return EVP_aes_192_cfb128();
    default:
        return EVP_aes_256_cfb128();
    }
}

// HKDF turns a key of any accepted length into a full AES-256 key, so a 16-byte legacy key
// still gets 256-bit v2 encryption, and the v2 key never equals the legacy key.
std::string derive_gcm_key(std::string_view key) {
    const std::unique_ptr<EVP_KDF, KdfFree> kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
    if (!kdf)
        throw_openssl_failure("load HKDF");
    const std::unique_ptr<EVP_KDF_CTX, KdfCtxFree> ctx(EVP_KDF_CTX_new(kdf.get()));
    if (!ctx)
        throw_openssl_failure("allocate an HKDF context");
    // No salt parameter: HKDF then uses HashLen zero bytes, which RFC 5869 defines as
    // equivalent to an empty salt.
    const std::array<OSSL_PARAM, 4> params = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<char*>(key.data()),
                                          key.size()),
        OSSL_PARAM_construct_octet_string(
            OSSL_KDF_PARAM_INFO, const_cast<char*>(k_hkdf_info.data()), k_hkdf_info.size()),
        OSSL_PARAM_construct_end(),
    };
    std::string out(k_gcm_key_size, '\0');
    if (EVP_KDF_derive(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), out.size(),
                       params.data()) != 1)
        throw_openssl_failure("derive the v2 key");
    return out;
}

// The outer base64 layer of either format; says which secret step failed, not just "base64".
std::string decode_stored(std::string_view text) {
    try {
        return base64_decode(text);
    } catch (const StoreError& e) {
        throw StoreError(std::string("cannot decrypt a secret: the stored value is ") + e.what());
    }
}

std::string decrypt_v2(std::string_view key, std::string_view encoded, std::string_view context) {
    const std::string payload = decode_stored(encoded);
    if (payload.size() < k_gcm_iv_size + k_gcm_tag_size)
        throw StoreError("cannot decrypt a secret: the stored value is truncated");
    const std::string_view view = payload;
    std::string tag(view.substr(payload.size() - k_gcm_tag_size));
    const GcmParams gcm{context, tag};
    return run_cipher(EVP_aes_256_gcm(), Direction::decrypt, key, view.substr(0, k_gcm_iv_size),
                      view.substr(k_gcm_iv_size, payload.size() - k_gcm_iv_size - k_gcm_tag_size),
                      &gcm);
}

std::string decrypt_legacy(std::string_view key, std::string_view stored) {
    const std::string payload = decode_stored(stored);
    if (payload.size() < k_legacy_iv_size)
        throw StoreError("cannot decrypt a legacy secret: the stored value has " +
                         std::to_string(payload.size()) + " bytes, fewer than its 16-byte IV");
    const std::string_view view = payload;
    std::string inner =
        run_cipher(legacy_cipher(key.size()), Direction::decrypt, key,
                   view.substr(0, k_legacy_iv_size), view.substr(k_legacy_iv_size), nullptr);
    // CFB has no integrity check: a wrong key only shows as an inner layer that is not base64.
    try {
        std::string plaintext = base64_decode(inner);
        OPENSSL_cleanse(inner.data(), inner.size());
        return plaintext;
    } catch (const StoreError&) {
        OPENSSL_cleanse(inner.data(), inner.size());
        throw StoreError("cannot decrypt a legacy secret: wrong key or corrupted value");
    }
}

// ---- key file -------------------------------------------------------------------------------

// Takes the pieces rather than a built message, so errno is read before anything (such as a
// string allocation) can change it.
[[noreturn]] void throw_io_error(const char* what, const std::string& path) {
    const int error = errno;
    throw StoreError(std::string(what) + " " + path + ": " +
                     std::generic_category().message(error));
}

// Closes the descriptor and, for a temporary file, removes it on every path out.
class FileGuard {
public:
    explicit FileGuard(int fd, std::string unlink_path = {})
        : m_fd(fd)
        , m_unlink_path(std::move(unlink_path)) {}
    ~FileGuard() {
        if (m_fd >= 0)
            ::close(m_fd);
        if (!m_unlink_path.empty())
            ::unlink(m_unlink_path.c_str());
    }
    FileGuard(const FileGuard&) = delete;
    FileGuard& operator=(const FileGuard&) = delete;

private:
    int m_fd;
    std::string m_unlink_path;
};

std::string read_key_file(const std::string& path, int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw_io_error("cannot inspect key file", path);
    if (!S_ISREG(st.st_mode))
        throw ConfigError("key file " + path + " is not a regular file");
    // The key decrypts every stored secret; like ssh with its private keys, refuse one that
    // other users could read or replace rather than silently keep using it.
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        throw ConfigError("key file " + path + " is accessible by group or others (mode " +
                          octal_mode(st.st_mode) + "), expected mode 0600; run: chmod 600 " + path);
    // A file another user owns is one they can chmod and rewrite at will. Root is accepted, as
    // ssh accepts it for its own files: root can read every file anyway.
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
        throw ConfigError("key file " + path + " is owned by uid " + std::to_string(st.st_uid) +
                          ", expected the user kprov runs as (uid " + std::to_string(::geteuid()) +
                          ") or root; run: chown " + std::to_string(::geteuid()) + " " + path);
    std::string text;
    std::array<char, 512> buffer{};
    while (text.size() <= k_key_file_max_read) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw_io_error("cannot read key file", path);
        }
        if (n == 0)
            break;
        text.append(buffer.data(), static_cast<std::size_t>(n));
    }
    OPENSSL_cleanse(buffer.data(), buffer.size());
    if (!text.empty() && text.back() == '\n')
        text.pop_back();
    if (!valid_key_size(text.size())) {
        const std::string size = text.size() > k_key_file_max_read
                                     ? "more than " + std::to_string(k_key_file_max_read)
                                     : std::to_string(text.size());
        OPENSSL_cleanse(text.data(), text.size());
        throw ConfigError("key file " + path + " holds a key of " + size +
                          " bytes (expected 16, 24 or 32, plus an optional trailing newline)");
    }
    return text;
}

void write_all(const std::string& path, int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw_io_error("cannot write key file", path);
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
}

// Makes a completed link to the new file durable; best effort, since some filesystems do not
// support fsync on directories and the file's own data is already on disk.
void sync_parent_directory(const std::string& path) {
    std::string dir = std::filesystem::path(path).parent_path().string();
    if (dir.empty())
        dir = ".";
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// Publishes a new key at `path` only once it is complete: it is written and synced under a
// private temporary name, then hard-linked into place. link() fails with EEXIST if another
// process (or thread) got there first, and a reader never sees a half-written key, which a
// plain O_CREAT|O_EXCL on `path` itself would allow. Returns false if `path` already existed.
bool create_key_file(const std::string& path, const std::string& content) {
    std::string suffix;
    for (const unsigned char c : random_bytes(8)) {
        constexpr std::string_view hex = "0123456789abcdef";
        suffix += hex[c >> 4];
        suffix += hex[c & 0xf];
    }
    const std::string temp_path = path + ".tmp-" + suffix;
    const int fd = ::open(temp_path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        throw_io_error("cannot create key file", path);
    const FileGuard temp(fd, temp_path);
    // The umask may have cleared bits of 0600 (e.g. 0277 would leave the owner unable to read).
    if (::fchmod(fd, 0600) != 0)
        throw_io_error("cannot set the mode of key file", path);
    write_all(path, fd, content);
    // Data encrypted with a key that a crash then loses is unrecoverable: sync before linking.
    if (::fsync(fd) != 0)
        throw_io_error("cannot sync key file", path);
    if (::link(temp_path.c_str(), path.c_str()) != 0) {
        if (errno == EEXIST)
            return false;
        throw_io_error("cannot create key file", path);
    }
    sync_parent_directory(path);
    return true;
}

// Opens an existing key file; -1 with errno ENOENT means there is none yet. A symbolic link is
// refused rather than followed: whoever can change where it points chooses the key.
int open_existing(const std::string& path) {
    int fd;
    do {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0 && errno == ELOOP)
        throw ConfigError("key file " + path +
                          " is a symbolic link, expected a regular file; replace the link by "
                          "the file it points to");
    if (fd < 0 && errno != ENOENT)
        throw_io_error("cannot open key file", path);
    return fd;
}

} // namespace

SecretCipher::SecretCipher(std::string key)
    : m_key(std::move(key)) {
    if (!valid_key_size(m_key.size()))
        throw ConfigError("APP_DATABASE_SECRET_KEY has " + std::to_string(m_key.size()) +
                          " bytes (expected 16, 24 or 32)");
    m_gcm_key = derive_gcm_key(m_key);
}

SecretCipher SecretCipher::without_key() {
    return SecretCipher();
}

void SecretCipher::require_key() const {
    if (m_key.empty())
        throw ConfigError("cannot read or write a secret, the store was opened without a key "
                          "(for schema migration only), expected APP_DATABASE_SECRET_KEY or, "
                          "on SQLite, its key file");
}

std::string SecretCipher::encrypt(std::string_view plaintext, std::string_view context) const {
    require_key();
    const std::string iv = random_bytes(k_gcm_iv_size);
    std::string tag;
    const GcmParams gcm{context, tag};
    const std::string ciphertext =
        run_cipher(EVP_aes_256_gcm(), Direction::encrypt, m_gcm_key, iv, plaintext, &gcm);
    return std::string(k_v2_prefix) + base64_encode(iv + ciphertext + tag);
}

std::string SecretCipher::decrypt(std::string_view stored, std::string_view context) const {
    if (m_refuse_old_formats && !is_current(stored))
        refuse_old_format("in the original's unauthenticated format (AES-CFB)", context);
    return decrypt_any(stored, context);
}

std::string SecretCipher::decrypt_any(std::string_view stored, std::string_view context) const {
    require_key();
    if (is_current(stored))
        return decrypt_v2(m_gcm_key, stored.substr(k_v2_prefix.size()), context);
    return decrypt_legacy(m_key, stored);
}

std::string SecretCipher::plaintext(std::string stored, std::string_view context) const {
    if (m_refuse_old_formats)
        refuse_old_format("in plaintext", context);
    return stored;
}

bool SecretCipher::is_current(std::string_view stored) {
    // ':' is outside the base64 alphabet, so no legacy value can start with the v2 prefix.
    return stored.starts_with(k_v2_prefix);
}

std::string SecretCipher::encrypt_legacy(std::string_view plaintext) const {
    require_key();
    const std::string iv = random_bytes(k_legacy_iv_size);
    std::string inner = base64_encode(plaintext);
    const std::string ciphertext =
        run_cipher(legacy_cipher(m_key.size()), Direction::encrypt, m_key, iv, inner, nullptr);
    OPENSSL_cleanse(inner.data(), inner.size());
    return base64_encode(iv + ciphertext);
}

std::optional<std::string> load_key_file(const std::string& path) {
    const int fd = open_existing(path);
    if (fd < 0)
        return std::nullopt;
    const FileGuard file(fd);
    return read_key_file(path, fd);
}

std::string load_or_create_key_file(const std::string& path) {
    if (auto existing = load_key_file(path))
        return std::move(*existing);
    std::string key = base64_encode(random_bytes(k_key_file_random_bytes));
    if (create_key_file(path, key + '\n'))
        return key;
    // Another process or thread created the file between our open and our link: use theirs,
    // so everyone sharing the database agrees on one key.
    OPENSSL_cleanse(key.data(), key.size());
    if (auto theirs = load_key_file(path))
        return std::move(*theirs);
    throw StoreError("cannot open key file " + path + ": it vanished while being created");
}

// ---- base64 ---------------------------------------------------------------------------------

std::string base64_encode(std::string_view bytes) {
    return net::base64_encode(bytes);
}

std::string base64_decode(std::string_view text) {
    // Messages give positions, never the text: it may be (part of) a secret.
    std::string problem;
    if (auto bytes = net::base64_decode_strict(text, &problem))
        return std::move(*bytes);
    throw StoreError("invalid base64 (" + problem + ")");
}

} // namespace kprov::stores
