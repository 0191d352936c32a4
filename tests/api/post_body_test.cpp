// The quick reading of GraphQL POST bodies (src/api/post_body.hpp): the same members as a full
// JSON parse where it answers, and no answer where it would have to guess.

#include "api/post_body.hpp"

#include <gtest/gtest.h>

namespace kprov::api {
namespace {

using nlohmann::json;

TEST(PostBody, ReadsWhatAFullParseReads) {
    for (const std::string body :
         {R"({"query":"query($id: String!) { a(id: $id) { b } }","variables":{"id":"x"}})",
          R"( { "variables" : { "a" : [1, {"b": "}"}] } , "query" : "{ \"q\\\n\t\/ }" } )",
          R"({"query":"{ a }","operationName":"Op","variables":null})",
          R"({"query":"{ a }","operationName":null})", R"({"query":""})",
          // Objects of strings, read without nlohmann's parser, and what it must still read.
          R"({"query":"{ a }","variables":{}})",
          R"({"query":"{ a }","variables": { "id" : "x" , "tenant":"t\"1" } })",
          R"({"query":"{ a }","variables":{"id":"x","id":"y"}})",
          R"({"query":"{ a }","variables":{"id":"x","n":1}})",
          R"({"query":"{ a }","variables":{"id":"\u00e9"}})",
          "{\"query\":\"{ a }\",\"variables\":{\"id\":\"caf\xC3\xA9\"}}",
          R"({"query":"{ a }","variables":{"o":{"id":"x"}}})",
          R"({"variables":{"id":"x"},"query":"{ a }"})"}) {
        const auto quick = read_post_body(body);
        ASSERT_TRUE(quick) << body;
        const json full = json::parse(body);
        EXPECT_EQ(quick->query, full["query"]) << body;
        EXPECT_EQ(quick->variables, full.value("variables", json())) << body;
        EXPECT_EQ(quick->operation_name, full.value("operationName", json())) << body;
    }
}

TEST(PostBody, LeavesEverythingElseToTheFullParser) {
    for (const std::string body : {
             "", "[]",
             "{}",                                                 // no query
             R"({"query":"{ a }")",                                // unterminated
             R"({"query":"{ a }"} x)",                             // trailing text
             R"({"query":"{ a }","query":"{ b }"})",               // a member twice
             R"({"query":"{ a }","extensions":{}})",               // another member
             R"({"query":"\u0041"})",                              // \u escape
             "{\"query\":\"caf\xC3\xA9\"}",                        // beyond ASCII
             "{\"query\":\"a\nb\"}",                               // raw control character
             R"({"query":1})",                                     // not a string
             R"({"query":"{ a }","variables":{"a":})",             // broken variables
             R"({"query":"{ a }","variables":{"a":1}]})",          // unbalanced
             R"({"query":"{ a }","variables":{"a":"b",}})",        // a trailing comma
             R"({"query":"{ a }","variables":{"a":"b" "c":"d"}})", // a missing comma
             R"({"query":"{ a }","variables":{"a" "b"}})",         // a missing colon
             R"({"query":"{ a }","variables":{"a":"b"})",          // unterminated
             R"({"query":"{ a }","operationName":3})",             // name of the wrong type
         })
        EXPECT_FALSE(read_post_body(body)) << body;
}

} // namespace
} // namespace kprov::api
