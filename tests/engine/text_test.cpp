#include "engine/util/text.hpp"

#include <gtest/gtest.h>

namespace kprov {
namespace {

TEST(Text, EditDistance) {
    EXPECT_EQ(edit_distance("", ""), 0u);
    EXPECT_EQ(edit_distance("status", "status"), 0u);
    EXPECT_EQ(edit_distance("stauts", "status"), 2u);
    EXPECT_EQ(edit_distance("provison", "provision"), 1u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(Text, ClosestMatchSuggestsLikelyTyposOnly) {
    const std::vector<std::string> commands = {"provision", "deprovision", "status", "list"};
    EXPECT_EQ(closest_match("provison", commands), "provision");
    EXPECT_EQ(closest_match("lst", commands), "list");
    EXPECT_EQ(closest_match("frobnicate", commands), std::nullopt);
    EXPECT_EQ(closest_match("x", {}), std::nullopt);
}

TEST(Text, RedactUrlHidesPasswordsOnly) {
    EXPECT_EQ(redact_url("postgres://user:pw@host:5432/db"), "postgres://user:***@host:5432/db");
    EXPECT_EQ(redact_url("postgresql://u@h/d?sslmode=require&password=secret&x=1"),
              "postgresql://u@h/d?sslmode=require&password=***&x=1");
    EXPECT_EQ(redact_url("postgres://h/d?password=s"), "postgres://h/d?password=***");
    EXPECT_EQ(redact_url("sqlite:///tmp/a.db"), "sqlite:///tmp/a.db");
    EXPECT_EQ(redact_url("postgres://user@host/db"), "postgres://user@host/db");
    EXPECT_EQ(redact_url("not a url"), "not a url");
    EXPECT_EQ(redact_url("postgresql://u:p%40ss@h:5432/d?sslmode=require"),
              "postgresql://u:***@h:5432/d?sslmode=require");
    EXPECT_EQ(redact_url("postgres://host:5432/db"), "postgres://host:5432/db");
    EXPECT_EQ(redact_url("postgres://host/db?note=a:b@c"), "postgres://host/db?note=a:b@c");
    // Issue 18: a password with characters its writer did not percent-encode.
    for (const char* password : {"PG#PASS", "pa/ss", "p?w", "a@b", "x#y/z?w@v"})
        EXPECT_EQ(redact_url(std::string("postgres://u:") + password + "@h:5432/db"),
                  "postgres://u:***@h:5432/db")
            << password;
}

} // namespace
} // namespace kprov
