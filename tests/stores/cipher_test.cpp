#include "engine/error.hpp"
#include "stores/cipher.hpp"
#include "stores_testing.hpp"
#include "support/test_databases.hpp"

#include <cctype>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <latch>
#include <memory>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace kprov::stores {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string k_key16 = "0123456789abcdef";
const std::string k_key24 = "0123456789abcdef01234567";
const std::string k_key32 = "0123456789abcdef0123456789abcdef";
const std::string k_context = "cluster.kubeconfig:c-1";

std::string random_string(std::size_t size) {
    std::string out(size, '\0');
    EXPECT_EQ(RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(size)), 1);
    return out;
}

// ---- An independent implementation of the original's format (§5.5), straight on OpenSSL ---
// Deliberately not sharing code with cipher.cpp: if both had the same bug, round trips alone
// would never notice.

std::string openssl_base64(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::string openssl_cfb(int encrypt, const std::string& key, const std::string& iv,
                        const std::string& input) {
    const EVP_CIPHER* cipher = key.size() == 16   ? EVP_aes_128_cfb128()
                               : key.size() == 24 ? EVP_aes_192_cfb128()
                                                  : EVP_aes_256_cfb128();
    const std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                              &EVP_CIPHER_CTX_free);
    std::string out(input.size() + 16, '\0');
    int len = 0;
    int total = 0;
    auto* out_bytes = reinterpret_cast<unsigned char*>(out.data());
    EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), cipher, nullptr,
                                reinterpret_cast<const unsigned char*>(key.data()),
                                reinterpret_cast<const unsigned char*>(iv.data()), encrypt),
              1);
    EXPECT_EQ(EVP_CipherUpdate(ctx.get(), out_bytes, &len,
                               reinterpret_cast<const unsigned char*>(input.data()),
                               static_cast<int>(input.size())),
              1);
    total = len;
    EXPECT_EQ(EVP_CipherFinal_ex(ctx.get(), out_bytes + total, &len), 1);
    out.resize(static_cast<std::size_t>(total + len));
    return out;
}

// The original's encrypt with a chosen IV: Base64(iv || CFB(key, iv, Base64(plaintext))).
std::string original_encrypt(const std::string& key, const std::string& iv,
                             const std::string& plaintext) {
    return openssl_base64(iv + openssl_cfb(1, key, iv, openssl_base64(plaintext)));
}

std::string original_decrypt_inner(const std::string& key, const std::string& stored) {
    std::string decoded(stored.size(), '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                  reinterpret_cast<const unsigned char*>(stored.data()),
                                  static_cast<int>(stored.size()));
    // EVP_DecodeBlock returns whole 3-byte groups, padding included as zero bytes.
    const auto padding = stored.size() - stored.find_last_not_of('=') - 1;
    decoded.resize(static_cast<std::size_t>(n) - padding);
    return openssl_cfb(0, key, decoded.substr(0, 16), decoded.substr(16));
}

// ---- SecretCipher ----------------------------------------------------------------------------

TEST(SecretCipherTest, RoundTripsWithEveryKeyLength) {
    for (const auto& key : {k_key16, k_key24, k_key32}) {
        const SecretCipher cipher(key);
        for (const std::string& plaintext :
             {std::string("admin@example.com"), std::string(5000, 'k'), random_string(77)}) {
            EXPECT_EQ(cipher.decrypt(cipher.encrypt(plaintext, k_context), k_context), plaintext)
                << key.size() << "-byte key";
            EXPECT_EQ(cipher.decrypt(cipher.encrypt_legacy(plaintext), k_context), plaintext)
                << key.size() << "-byte key";
        }
    }
}

TEST(SecretCipherTest, EmptyPlaintextRoundTripsInBothFormats) {
    const SecretCipher cipher(k_key32);
    EXPECT_EQ(cipher.decrypt(cipher.encrypt("", k_context), k_context), "");
    EXPECT_EQ(cipher.decrypt(cipher.encrypt("", ""), ""), "");
    EXPECT_EQ(cipher.decrypt(cipher.encrypt_legacy(""), k_context), "");
}

TEST(SecretCipherTest, WritesV2WithAFreshIvEachTime) {
    const SecretCipher cipher(k_key32);
    const auto first = cipher.encrypt("admin@example.com", k_context);
    const auto second = cipher.encrypt("admin@example.com", k_context);
    EXPECT_TRUE(first.starts_with("v2:")) << first;
    EXPECT_TRUE(second.starts_with("v2:")) << second;
    EXPECT_NE(first, second);
    // iv12 + 17 bytes of ciphertext + tag16.
    EXPECT_EQ(base64_decode(first.substr(3)).size(), 12u + 17u + 16u);
    EXPECT_NE(cipher.encrypt_legacy("x"), cipher.encrypt_legacy("x"));
}

TEST(SecretCipherTest, V2RejectsWrongKey) {
    const auto stored = SecretCipher(k_key32).encrypt("admin@example.com", k_context);
    for (const auto& other : {std::string("1123456789abcdef0123456789abcdef"), k_key16, k_key24}) {
        const auto message =
            message_of<StoreError>([&] { (void)SecretCipher(other).decrypt(stored, k_context); });
        EXPECT_EQ(message, "cannot decrypt a secret: wrong key or tampered value");
    }
}

TEST(SecretCipherTest, V2RejectsWrongContext) {
    const SecretCipher cipher(k_key32);
    const auto stored = cipher.encrypt("admin@example.com", "cluster.kubeconfig:c-1");
    EXPECT_THROW((void)cipher.decrypt(stored, "cluster.kubeconfig:c-2"), StoreError);
    EXPECT_THROW((void)cipher.decrypt(stored, "cluster_administrator.user_id:c-1"), StoreError);
    EXPECT_THROW((void)cipher.decrypt(stored, ""), StoreError);
    const auto no_context = cipher.encrypt("admin@example.com", "");
    EXPECT_THROW((void)cipher.decrypt(no_context, k_context), StoreError);
}

TEST(SecretCipherTest, V2RejectsEveryFlippedByte) {
    const SecretCipher cipher(k_key32);
    const auto stored = cipher.encrypt("admin@example.com", k_context);
    const auto payload = base64_decode(stored.substr(3));
    // Every byte of the IV, the ciphertext and the tag is covered by the tag check.
    for (std::size_t i = 0; i < payload.size(); ++i) {
        auto tampered = payload;
        tampered[i] = static_cast<char>(tampered[i] ^ 0x01);
        const auto message = message_of<StoreError>(
            [&] { (void)cipher.decrypt("v2:" + base64_encode(tampered), k_context); });
        EXPECT_THAT(message, Not(HasSubstr("admin"))) << "byte " << i;
    }
}

TEST(SecretCipherTest, V2RejectsTruncatedValue) {
    const SecretCipher cipher(k_key32);
    const auto stored = cipher.encrypt("admin@example.com", k_context);
    const auto payload = base64_decode(stored.substr(3));
    for (const std::size_t keep :
         {payload.size() - 1, std::size_t{28}, std::size_t{27}, std::size_t{12}, std::size_t{0}}) {
        EXPECT_THROW(
            (void)cipher.decrypt("v2:" + base64_encode(payload.substr(0, keep)), k_context),
            StoreError)
            << "kept " << keep << " bytes";
    }
    // Cut inside the base64 text, too.
    EXPECT_THROW((void)cipher.decrypt(stored.substr(0, stored.size() - 1), k_context), StoreError);
}

TEST(SecretCipherTest, V2DecryptsKnownVector) {
    // Computed with Python's `cryptography` (HKDF-SHA256, no salt, info "kprov secret v2";
    // AESGCM with IV 00112233445566778899aabb, AAD "cluster.kubeconfig:c-1"). Pins the format
    // of every value kprov has ever written.
    const std::string stored = "v2:ABEiM0RVZneImaq73WpSloORQIeaZpJwBwdUK7XiGnxEILS7S/E6fp7X4oIf";
    EXPECT_EQ(SecretCipher(k_key32).decrypt(stored, k_context), "admin@example.com");
}

TEST(SecretCipherTest, RefusesKeysOfWrongLength) {
    for (const std::size_t size : {0, 15, 17, 33}) {
        const std::string key(size, 'q');
        const auto message = message_of<ConfigError>([&] { SecretCipher cipher(key); });
        EXPECT_EQ(message, "APP_DATABASE_SECRET_KEY has " + std::to_string(size) +
                               " bytes (expected 16, 24 or 32)");
        if (!key.empty()) {
            EXPECT_THAT(message, Not(HasSubstr(key)));
        }
    }
}

TEST(SecretCipherTest, WithoutAKeyEveryUseIsAConfigErrorNamingTheVariable) {
    const SecretCipher keyless = SecretCipher::without_key();
    const auto stored = SecretCipher(k_key32).encrypt("admin@example.com", k_context);
    for (const auto& message :
         {message_of<ConfigError>([&] { (void)keyless.encrypt("admin@example.com", k_context); }),
          message_of<ConfigError>([&] { (void)keyless.encrypt_legacy("admin@example.com"); }),
          message_of<ConfigError>([&] { (void)keyless.decrypt(stored, k_context); })})
        EXPECT_THAT(message, HasSubstr("APP_DATABASE_SECRET_KEY"));
}

TEST(SecretCipherTest, DecryptsValuesMadeWithTheOriginalAlgorithm) {
    for (const auto& key : {k_key16, k_key24, k_key32}) {
        const SecretCipher cipher(key);
        for (const std::string& plaintext :
             {std::string("admin@example.com"), std::string(),
              std::string("apiVersion: v1\nkind: Config\n"), random_string(100)}) {
            const auto stored = original_encrypt(key, random_string(16), plaintext);
            EXPECT_EQ(cipher.decrypt(stored, "any context"), plaintext) << key.size();
        }
    }
}

TEST(SecretCipherTest, DecryptsKnownLegacyVectors) {
    // Computed with the openssl CLI: base64 of (IV || `openssl enc -aes-N-cfb` of
    // base64("admin@example.com")), cross-checked with Python's `cryptography` CFB.
    EXPECT_EQ(SecretCipher(k_key32).decrypt(
                  "AAECAwQFBgcICQoLDA0ODwoKjoH3mAMlW2TvJefR+VJ5wRABJ4K3Jg==", k_context),
              "admin@example.com");
    EXPECT_EQ(SecretCipher(k_key16).decrypt(
                  "8OHSw7Sllod4aVpLPC0eD1Eo7DSMyl99YFwFpYTl9W91O/8rHZkIpQ==", k_context),
              "admin@example.com");
}

TEST(SecretCipherTest, EncryptLegacyIsReadableByTheOriginalAlgorithm) {
    for (const auto& key : {k_key16, k_key24, k_key32}) {
        const auto stored = SecretCipher(key).encrypt_legacy("admin@example.com");
        EXPECT_EQ(original_decrypt_inner(key, stored), openssl_base64("admin@example.com"));
    }
}

TEST(SecretCipherTest, LegacyRejectsValueShorterThanItsIv) {
    const SecretCipher cipher(k_key32);
    const auto message = message_of<StoreError>(
        [&] { (void)cipher.decrypt(base64_encode(std::string(15, 'x')), k_context); });
    EXPECT_THAT(message, HasSubstr("15 bytes"));
    EXPECT_THROW((void)cipher.decrypt("", k_context), StoreError);
}

TEST(SecretCipherTest, LegacyRejectsInvalidBase64InEitherLayer) {
    const SecretCipher cipher(k_key32);
    EXPECT_EQ(message_of<StoreError>([&] { (void)cipher.decrypt("not base64 at all!", ""); }),
              "cannot decrypt a secret: the stored value is invalid base64 (length 18 is not a "
              "multiple of 4)");
    EXPECT_THAT(message_of<StoreError>([&] { (void)cipher.decrypt("v2:AAAA*AAA", ""); }),
                HasSubstr("invalid base64 (character at offset 4"));
    // A valid outer layer around an inner layer that is not base64.
    const auto iv = random_string(16);
    const auto stored = openssl_base64(iv + openssl_cfb(1, k_key32, iv, "!!not base64!!"));
    const auto message = message_of<StoreError>([&] { (void)cipher.decrypt(stored, k_context); });
    EXPECT_THAT(message, Not(HasSubstr("not base64!!")));
}

TEST(SecretCipherTest, LegacyRejectsWrongKey) {
    const auto stored = SecretCipher(k_key32).encrypt_legacy("admin@example.com");
    EXPECT_THROW((void)SecretCipher("1123456789abcdef0123456789abcdef").decrypt(stored, ""),
                 StoreError);
}

TEST(SecretCipherTest, IsUsableFromManyThreadsAtOnce) {
    const SecretCipher cipher(k_key24);
    std::vector<std::jthread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&cipher, t] {
            const auto context = "cluster.kubeconfig:" + std::to_string(t);
            for (int i = 0; i < 200; ++i) {
                const auto plaintext = "secret " + std::to_string(t) + "/" + std::to_string(i);
                EXPECT_EQ(cipher.decrypt(cipher.encrypt(plaintext, context), context), plaintext);
                EXPECT_EQ(cipher.decrypt(cipher.encrypt_legacy(plaintext), context), plaintext);
            }
        });
    }
}

// ---- base64 ----------------------------------------------------------------------------------

// The RFC 4648 vectors are tested in tests/net; here the stores' strict use of it.

TEST(Base64Test, AgreesWithOpenSslOnRandomBytes) {
    for (std::size_t size = 0; size < 70; ++size) {
        const auto bytes = random_string(size);
        const auto encoded = base64_encode(bytes);
        EXPECT_EQ(encoded, openssl_base64(bytes)) << size;
        EXPECT_EQ(base64_decode(encoded), bytes) << size;
    }
}

TEST(Base64Test, RejectsMalformedText) {
    for (const std::string bad : {"Zg=", "Zg", "Z===", "====", "Zg==Zg==", "Zm9v\n", "Zm9\n",
                                  "Zm 9", "Zm9-", "Zm9_", "Zh==", "Zm9=", "Zm=v", "=m9v"}) {
        EXPECT_THROW((void)base64_decode(bad), StoreError) << '"' << bad << '"';
    }
}

// ---- key file --------------------------------------------------------------------------------

void write_file(const std::string& path, const std::string& content, mode_t mode) {
    std::ofstream(path, std::ios::binary) << content;
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
}

TEST(KeyFileTest, CreatesAPrivateFileAndReusesIt) {
    const kprov::testing::TempDir dir;
    const auto path = dir.file("secret.key");
    const auto key = load_or_create_key_file(path);
    EXPECT_EQ(key.size(), 32u);
    for (const char c : key)
        EXPECT_TRUE(std::isgraph(static_cast<unsigned char>(c))) << key;
    EXPECT_EQ(kprov::testing::file_mode(path), 0600u);
    EXPECT_EQ(read_file(path), key + "\n");
    EXPECT_NO_THROW(SecretCipher cipher(key));

    EXPECT_EQ(load_or_create_key_file(path), key);
    // No temporary files are left beside the key.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                            std::filesystem::directory_iterator()),
              1);
}

TEST(KeyFileTest, CreatesAPrivateFileWhateverTheUmask) {
    const kprov::testing::TempDir dir;
    const auto previous = ::umask(0);
    const auto key = load_or_create_key_file(dir.file("secret.key"));
    ::umask(0277);
    const auto key2 = load_or_create_key_file(dir.file("other.key"));
    ::umask(previous);
    EXPECT_EQ(kprov::testing::file_mode(dir.file("secret.key")), 0600u);
    EXPECT_EQ(kprov::testing::file_mode(dir.file("other.key")), 0600u);
    EXPECT_NE(key, key2);
}

TEST(KeyFileTest, ReadsAnExistingKeyAndStripsOneNewline) {
    const kprov::testing::TempDir dir;
    write_file(dir.file("a.key"), k_key16 + "\n", 0600);
    EXPECT_EQ(load_or_create_key_file(dir.file("a.key")), k_key16);
    write_file(dir.file("b.key"), k_key24, 0400);
    EXPECT_EQ(load_or_create_key_file(dir.file("b.key")), k_key24);
    // Only one newline is stripped: 32 + "\n" is 33 bytes, which is no key.
    write_file(dir.file("c.key"), k_key32 + "\n\n", 0600);
    EXPECT_THROW((void)load_or_create_key_file(dir.file("c.key")), ConfigError);
}

TEST(KeyFileTest, LoadingAMissingFileGivesNothingAndCreatesNothing) {
    const kprov::testing::TempDir dir;
    EXPECT_EQ(load_key_file(dir.file("secret.key")), std::nullopt);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
    const auto key = load_or_create_key_file(dir.file("secret.key"));
    EXPECT_EQ(load_key_file(dir.file("secret.key")), key);
}

TEST(KeyFileTest, RefusesAKeyOfWrongLength) {
    const kprov::testing::TempDir dir;
    const auto path = dir.file("secret.key");
    write_file(path, "too-short-key\n", 0600);
    const auto message = message_of<ConfigError>([&] { (void)load_or_create_key_file(path); });
    EXPECT_THAT(message, HasSubstr(path));
    EXPECT_THAT(message, HasSubstr("13 bytes"));
    EXPECT_THAT(message, Not(HasSubstr("too-short-key")));
    // Refused, not replaced.
    EXPECT_EQ(read_file(path), "too-short-key\n");
}

TEST(KeyFileTest, RefusesAFileOthersCanRead) {
    const kprov::testing::TempDir dir;
    const auto path = dir.file("secret.key");
    for (const mode_t mode : {0640, 0604, 0620}) {
        write_file(path, k_key32 + "\n", mode);
        const auto message = message_of<ConfigError>([&] { (void)load_or_create_key_file(path); });
        EXPECT_THAT(message, HasSubstr("chmod 600 " + path));
        EXPECT_THAT(message, Not(HasSubstr(k_key32)));
    }
}

TEST(KeyFileTest, ConcurrentCreationYieldsOneKey) {
    // Several rounds, so the threads really do race on some of them.
    for (int round = 0; round < 20; ++round) {
        const kprov::testing::TempDir dir;
        const auto path = dir.file("secret.key");
        constexpr int k_threads = 4;
        std::vector<std::string> keys(k_threads);
        std::latch start(k_threads);
        {
            std::vector<std::jthread> threads;
            for (int t = 0; t < k_threads; ++t) {
                threads.emplace_back([&, t] {
                    start.arrive_and_wait();
                    // An exception escaping a thread would abort the whole test binary.
                    try {
                        keys[static_cast<std::size_t>(t)] = load_or_create_key_file(path);
                    } catch (const std::exception& e) {
                        keys[static_cast<std::size_t>(t)] = e.what();
                    }
                });
            }
        }
        for (const auto& key : keys)
            EXPECT_EQ(key, keys[0]) << "round " << round;
        EXPECT_EQ(keys[0].size(), 32u);
        EXPECT_EQ(read_file(path), keys[0] + "\n");
    }
}

TEST(KeyFileTest, FailsWhenTheDirectoryIsMissing) {
    const kprov::testing::TempDir dir;
    EXPECT_THROW((void)load_or_create_key_file(dir.file("missing/secret.key")), StoreError);
}

} // namespace
} // namespace kprov::stores
