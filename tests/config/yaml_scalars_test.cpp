// The scanners that type YAML plain scalars (src/yaml/yaml_scalars.hpp): each the regular
// expression it replaced, checked on every shape of it and on texts of hundreds of thousands of
// characters (which overflowed std::regex's recursive matcher).

#include "yaml/yaml_scalars.hpp"

#include <gtest/gtest.h>
#include <string>

namespace kprov::yaml {
namespace {

TEST(YamlScalars, DecimalIntegers) {
    for (const char* yes : {"0", "7", "-1", "+42", "007", "123456789012345678901234567890"})
        EXPECT_TRUE(is_decimal_integer(yes)) << yes;
    for (const char* no : {"", "-", "+", "1.", "1e3", " 1", "1 ", "0x1", "--1", "1-", "١"})
        EXPECT_FALSE(is_decimal_integer(no)) << no;
}

TEST(YamlScalars, OctalAndHexIntegers) {
    EXPECT_TRUE(is_octal_integer("0o17"));
    EXPECT_FALSE(is_octal_integer("0o"));
    EXPECT_FALSE(is_octal_integer("0o8"));
    EXPECT_FALSE(is_octal_integer("-0o1"));
    EXPECT_FALSE(is_octal_integer("0O1"));
    EXPECT_TRUE(is_hex_integer("0xdeadBEEF"));
    EXPECT_FALSE(is_hex_integer("0x"));
    EXPECT_FALSE(is_hex_integer("0xg"));
    EXPECT_FALSE(is_hex_integer("0X1"));
    EXPECT_FALSE(is_hex_integer("+0x1"));
}

TEST(YamlScalars, DecimalNumbers) {
    for (const char* yes :
         {"1", "-1", "1.", "1.5", ".5", "-.5", "+1.e3", "1e3", "1E-3", ".5e+7", "0.0"})
        EXPECT_TRUE(is_decimal_number(yes)) << yes;
    for (const char* no : {"", ".", "-.", "+", "e3", "1e", "1e+", ".e3", "1.5.", "1..5", "1e3.5",
                           "1.5e3e", " 1", "0x1", "inf", "1_000"})
        EXPECT_FALSE(is_decimal_number(no)) << no;
}

TEST(YamlScalars, SpecialFloatsAndKeywords) {
    for (const char* yes : {".inf", "-.Inf", "+.INF", ".nan", ".NaN", ".NAN"})
        EXPECT_TRUE(is_special_float(yes)) << yes;
    for (const char* no : {"inf", ".Nan", "-.nan", ".iNF", "..inf", ".inf "})
        EXPECT_FALSE(is_special_float(no)) << no;
    for (const char* yes : {"", "~", "null", "Null", "NULL", "true", "True", "TRUE", "yes", "No",
                            "ON", "off", "y", "Y", "n", "N"})
        EXPECT_TRUE(is_keyword(yes)) << yes;
    for (const char* no : {"nULL", "tRUE", "yEs", "nil", "~~", "Off ", "truee"})
        EXPECT_FALSE(is_keyword(no)) << no;
}

TEST(YamlScalars, WhatNeedsQuotesToReadBackAsText) {
    for (const char* quoted : {"", "true", "Off", "12", "-1.5e3", "0x1F", "0o7", ".inf", "~"})
        EXPECT_TRUE(plain_reads_as_other_type(quoted)) << quoted;
    for (const char* plain : {"hello", "1.2.3", "v1", "0x", "truth", "1,000", "-"})
        EXPECT_FALSE(plain_reads_as_other_type(plain)) << plain;
}

// Issue 32, findings 3, 6 and 7: a number of 300,000 digits is scanned in one pass.
TEST(YamlScalars, HundredsOfThousandsOfDigitsAreScannedWithoutRecursion) {
    const std::string digits(300'000, '7');
    EXPECT_TRUE(is_decimal_integer(digits));
    EXPECT_TRUE(is_decimal_number(digits + "." + digits + "e-" + digits));
    EXPECT_TRUE(is_hex_integer("0x" + digits));
    EXPECT_TRUE(plain_reads_as_other_type(digits));
    EXPECT_FALSE(is_decimal_number(digits + "x"));
}

} // namespace
} // namespace kprov::yaml
