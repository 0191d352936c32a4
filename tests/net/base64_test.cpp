#include "net/base64.hpp"

#include <gtest/gtest.h>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kprov::net {
namespace {

std::string random_bytes(std::size_t size, unsigned seed) {
    std::mt19937 engine(seed);
    std::string out(size, '\0');
    for (auto& c : out)
        c = static_cast<char>(engine() & 0xFF);
    return out;
}

TEST(NetBase64Test, MatchesRfc4648VectorsBothWays) {
    const std::vector<std::pair<std::string, std::string>> vectors = {{"", ""},
                                                                      {"f", "Zg=="},
                                                                      {"fo", "Zm8="},
                                                                      {"foo", "Zm9v"},
                                                                      {"foob", "Zm9vYg=="},
                                                                      {"fooba", "Zm9vYmE="},
                                                                      {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : vectors) {
        EXPECT_EQ(base64_encode(plain), encoded);
        EXPECT_EQ(base64_decode(encoded), plain) << encoded;
        EXPECT_EQ(base64_decode_strict(encoded), plain) << encoded;
    }
}

TEST(NetBase64Test, RoundTripsEveryLengthOfBinaryData) {
    for (std::size_t size = 0; size < 100; ++size) {
        const auto bytes = random_bytes(size, static_cast<unsigned>(size));
        const auto encoded = base64_encode(bytes);
        EXPECT_EQ(encoded.size(), (size + 2) / 3 * 4);
        EXPECT_EQ(base64_decode(encoded), bytes) << size;
        EXPECT_EQ(base64_decode_strict(encoded), bytes) << size;
    }
}

TEST(NetBase64Test, LenientDecodingAcceptsMissingPaddingAndWhitespace) {
    EXPECT_EQ(base64_decode("Zg"), "f");
    EXPECT_EQ(base64_decode("Zm8"), "fo");
    EXPECT_EQ(base64_decode("aGVsbG8"), "hello");
    EXPECT_EQ(base64_decode("aGVs\nbG8="), "hello");
    EXPECT_EQ(base64_decode(" aGVs\r\n\tbG8=\n"), "hello");
    EXPECT_EQ(base64_decode("Zm9v YmFy"), "foobar");
    EXPECT_EQ(base64_decode(""), "");
    EXPECT_EQ(base64_decode(" \n "), "");
}

TEST(NetBase64Test, LenientDecodingRejectsWhatNoEncoderWrites) {
    for (const std::string& bad :
         std::vector<std::string>{"aGVs*G8=", "aGVsbG8=x", "Zm9-", "Zm9_", "Z", "Zm9vY",
                                  "Z===", "====", "Zg=", "Zg==Zg==", "Zm=v", "=m9v",
                                  std::string("Zm9v\0", 5), "Zm9v\xC3\xA9"}) {
        EXPECT_EQ(base64_decode(bad), std::nullopt) << '"' << bad << '"';
    }
}

TEST(NetBase64Test, StrictDecodingSaysWhatIsWrongWithoutQuotingTheText) {
    std::string problem;
    EXPECT_EQ(base64_decode_strict("c2VjcmV0IQ", &problem), std::nullopt);
    EXPECT_EQ(problem, "length 10 is not a multiple of 4");
    EXPECT_EQ(base64_decode_strict("c2Vj*mV0", &problem), std::nullopt);
    EXPECT_EQ(problem, "character at offset 4 is outside the standard alphabet");
    EXPECT_EQ(base64_decode_strict("Zh==", &problem), std::nullopt);
    EXPECT_EQ(problem, "non-zero bits before the final padding");
    for (const std::string bad : {"Zg=", "Zg", "Z===", "====", "Zg==Zg==", "Zm9v\n", "Zm9\n",
                                  "Zm 9", "Zm9-", "Zm9_", "Zh==", "Zm9=", "Zm=v", "=m9v"}) {
        problem.clear();
        EXPECT_EQ(base64_decode_strict(bad, &problem), std::nullopt) << '"' << bad << '"';
        EXPECT_FALSE(problem.empty()) << bad;
    }
    EXPECT_EQ(base64_decode_strict(""), "");
}

} // namespace
} // namespace kprov::net
