#include "net/remote_values.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>
#include <nlohmann/json.hpp>

namespace kprov::net {
namespace {

using nlohmann::json;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr auto k_max = std::numeric_limits<std::int64_t>::max();
constexpr auto k_min = std::numeric_limits<std::int64_t>::min();

TEST(SaturatingNumbersTest, DoublesBeyondTheRangeSaturate) {
    EXPECT_EQ(saturating_int64(1e300), k_max);
    EXPECT_EQ(saturating_int64(-1e300), k_min);
    EXPECT_EQ(saturating_int64(9223372036854775808.0), k_max);
    EXPECT_EQ(saturating_int64(std::numeric_limits<double>::infinity()), k_max);
    EXPECT_EQ(saturating_int64(std::nan("")), 0);
    EXPECT_EQ(saturating_int64(42.9), 42);
    EXPECT_EQ(saturating_int64(-42.9), -42);
}

TEST(SaturatingNumbersTest, JsonNumbersOfEveryKindSaturate) {
    EXPECT_EQ(json_int64(json::parse("18446744073709551615")), k_max);
    EXPECT_EQ(json_int64(json::parse("-9223372036854775808")), k_min);
    EXPECT_EQ(json_int64(json::parse("1e300")), k_max);
    EXPECT_EQ(json_int64(json::parse("7")), 7);
    EXPECT_EQ(json_int64(json::parse("\"7\"")), std::nullopt);
    EXPECT_EQ(json_int64(json()), std::nullopt);
    EXPECT_EQ(json_int(json::parse("99999999999")), std::numeric_limits<int>::max());
    EXPECT_EQ(json_int(json::parse("-99999999999")), std::numeric_limits<int>::min());
    EXPECT_EQ(json_int(json::parse("410")), 410);
}

TEST(SaturatingNumbersTest, SecondsBecomeMillisecondsWithoutOverflow) {
    EXPECT_EQ(saturating_millis(1e300), std::chrono::milliseconds::max());
    EXPECT_EQ(saturating_millis(9.3e15), std::chrono::milliseconds::max());
    EXPECT_EQ(saturating_millis(-5), std::chrono::milliseconds(0));
    EXPECT_EQ(saturating_millis(std::nan("")), std::chrono::milliseconds(0));
    EXPECT_EQ(saturating_millis(3599.5), std::chrono::milliseconds(3'599'500));
}

TEST(CleanRemoteTextTest, ControlCharactersAreReplacedAndWhitespaceBecomesSpaces) {
    const std::string cleaned = clean_remote_text("red \x1b[31mALERT\x1b[0m\r\nline\ttwo\x7f\x01");
    EXPECT_THAT(cleaned, Not(HasSubstr("\x1b")));
    EXPECT_EQ(cleaned,
              "red \xEF\xBF\xBD[31mALERT\xEF\xBF\xBD[0m  line two\xEF\xBF\xBD\xEF\xBF\xBD");
    // C1 controls (U+0080..U+009F, e.g. the 8-bit CSI U+009B) are controls too.
    EXPECT_EQ(clean_remote_text("a\xC2\x9B"
                                "b"),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(clean_remote_text(std::string("nul\0byte", 8)), "nul\xEF\xBF\xBD"
                                                              "byte");
}

TEST(CleanRemoteTextTest, ValidUtf8IsKeptAndInvalidBytesAreReplaced) {
    EXPECT_EQ(clean_remote_text("Größe: 5 € 😀"), "Größe: 5 € 😀");
    EXPECT_EQ(clean_remote_text("bad \xFF byte"), "bad \xEF\xBF\xBD byte");
    EXPECT_EQ(clean_remote_text("cut \xE2\x82"), "cut \xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(clean_remote_text("overlong \xC0\xAF"), "overlong \xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(clean_remote_text("surrogate \xED\xA0\x80"),
              "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(CleanRemoteTextTest, LongTextsAreCutOnACodePointBoundary) {
    const std::string long_text(5000, 'x');
    const std::string cleaned = clean_remote_text(long_text);
    EXPECT_EQ(cleaned, std::string(1024, 'x') + "\xE2\x80\xA6 (truncated)");
    // 3-byte characters: 1024 / 3 = 341 whole ones fit, never a part of the 342nd.
    std::string euros;
    for (int i = 0; i < 2000; ++i)
        euros += "€";
    const std::string cut = clean_remote_text(euros);
    EXPECT_THAT(cut, EndsWith("\xE2\x80\xA6 (truncated)"));
    EXPECT_EQ(cut.size(), 341 * 3 + std::string_view("\xE2\x80\xA6 (truncated)").size());
    EXPECT_EQ(clean_remote_text(std::string(1024, 'y')), std::string(1024, 'y'))
        << "a text at the cap is whole";
    EXPECT_EQ(clean_remote_text("", 10), "");
}

} // namespace
} // namespace kprov::net
