#include "gardener/json_projection.hpp"

#include <gtest/gtest.h>
#include <random>

namespace kprov::gardener {
namespace {

using nlohmann::json;

TEST(JsonProjection, KeepsThePathsAndNothingElse) {
    const JsonProjection p({"metadata.name", "status.lastOperation", "spec.dns.domain"});
    const auto out = p.parse(R"({
      "apiVersion": "core.gardener.cloud/v1beta1",
      "metadata": {"name": "rt1", "uid": "u", "annotations": {"a": "b"}},
      "spec": {"dns": {"domain": "x.example", "providers": [{"type": "aws"}]}, "region": "eu"},
      "status": {"lastOperation": {"state": "Succeeded", "progress": 100, "x": [1, {"y": null}]},
                 "conditions": [{"type": "APIServerAvailable"}]}
    })");
    ASSERT_TRUE(out);
    EXPECT_EQ(*out, json::parse(R"({
      "metadata": {"name": "rt1"},
      "spec": {"dns": {"domain": "x.example"}},
      "status": {"lastOperation": {"state": "Succeeded", "progress": 100, "x": [1, {"y": null}]}}
    })"));
}

TEST(JsonProjection, AValueThatIsNoObjectOnTheWayIsKeptWhole) {
    const JsonProjection p({"spec.dns.domain"});
    EXPECT_EQ(*p.parse(R"({"spec": {"dns": [1, 2]}})"),
              json::parse(R"({"spec": {"dns": [1, 2]}})"));
    EXPECT_EQ(*p.parse(R"({"spec": null})"), json::parse(R"({"spec": null})"));
    EXPECT_EQ(*p.parse(R"("just a string")"), json("just a string"));
    EXPECT_EQ(*p.parse(R"({})"), json::object());
}

TEST(JsonProjection, RepeatedNamesAndEscapedNamesReadAsNlohmannReadsThem) {
    const JsonProjection p({"a.b", "c\u00e9"});
    const std::string text =
        R"({"a": {"b": 1, "z": 2}, "a": {"b": 3}, "c\u00e9": true, "a\u0062": "skipped"})";
    const auto out = p.parse(text);
    ASSERT_TRUE(out);
    EXPECT_EQ(*out, p.project(json::parse(text)));
    EXPECT_EQ(out->at("a").at("b"), 3);
    EXPECT_EQ(out->at("c\u00e9"), true);
}

TEST(JsonProjection, NoPathsParsesEverything) {
    const JsonProjection p({});
    const std::string text = R"({"a": [1, 2.5e3, -0, "x\n"], "b": {"c": false}})";
    EXPECT_EQ(*p.parse(text), json::parse(text));
}

TEST(JsonProjection, RejectsWhatIsNotJsonInsideOrOutsideTheProjection) {
    const JsonProjection p({"keep"});
    for (const char* text : {"",
                             " ",
                             "{",
                             "}",
                             R"({"keep": 1)",
                             R"({"keep": 1}})",
                             R"({"keep": 1} x)",
                             R"({"skip": [1, 2})",
                             R"({"skip": {"a" 1}})",
                             R"({"skip": {"a": 1,}})",
                             R"({"skip": [1,]})",
                             R"({"skip": [,1]})",
                             R"({"skip": 01})",
                             R"({"skip": 1.})",
                             R"({"skip": .5})",
                             R"({"skip": 1e})",
                             R"({"skip": -})",
                             R"({"skip": +1})",
                             R"({"skip": tru})",
                             R"({"skip": nul})",
                             R"({"skip": "a\x"})",
                             R"({"skip": "\u12"})",
                             "{\"skip\": \"tab\there\"}",
                             R"({"skip": "open)",
                             R"({skip: 1})",
                             R"({"skip": [}])",
                             R"({"skip": {]})",
                             R"({"keep": [1, }])",
                             R"({"keep": "\ud800"})",
                             R"([1] [2])",
                             R"({"skip": "\ud800"})",
                             R"({"skip": "\udc00"})",
                             R"({"skip": "\ud800\u0041"})",
                             R"({"skip": "\ud800\n"})"}) {
        SCOPED_TRACE(text);
        EXPECT_TRUE(json::parse(text, nullptr, false).is_discarded()); // the list is honest
        EXPECT_FALSE(p.parse(text));
    }
}

TEST(JsonProjection, DeepNestingOutsideTheProjectionNeedsNoRecursion) {
    const JsonProjection p({"keep"});
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    const auto out = p.parse(R"({"keep": 7, "skip": )" + deep + "}");
    ASSERT_TRUE(out);
    EXPECT_EQ(*out, json::parse(R"({"keep": 7})"));
    EXPECT_FALSE(p.parse(R"({"skip": )" + std::string(200000, '[') + "}"));
}

// Random documents over a small vocabulary of names, so that the projection's paths occur at
// every depth, compared with nlohmann's parse projected afterwards; then the same texts with
// random bytes changed, where both parsers must agree on accepting and on the result.
json random_value(std::mt19937& rng, int depth) {
    static const char* names[] = {"a", "b", "c", "meta", "x\"y", "\\u00e9"};
    const int kind = static_cast<int>(rng() % (depth > 3 ? 5 : 7));
    switch (kind) {
    case 0:
        return nullptr;
    case 1:
        return rng() % 2 == 0;
    case 2:
        return static_cast<int>(rng() % 2000) - 1000;
    case 3:
        return static_cast<double>(rng() % 100000) / 64.0;
    case 4:
        return std::string(rng() % 5, static_cast<char>('a' + rng() % 26)) + "\t\"\\";
    case 5: {
        json a = json::array();
        for (std::size_t i = rng() % 4; i > 0; --i)
            a.push_back(random_value(rng, depth + 1));
        return a;
    }
    default: {
        json o = json::object();
        for (std::size_t i = rng() % 5; i > 0; --i)
            o[names[rng() % 6]] = random_value(rng, depth + 1);
        return o;
    }
    }
}

TEST(JsonProjection, AgreesWithNlohmannOnRandomAndBrokenDocuments) {
    const JsonProjection p({"a.b", "a.c.a", "meta", "c", "x\"y.a"});
    std::mt19937 rng(20261130);
    const std::string alphabet = "{}[]:,\" \\0123456789.eE+-truefalsnabcu";
    int accepted_after_change = 0;
    for (int i = 0; i < 3000; ++i) {
        const json doc = random_value(rng, 0);
        std::string text = doc.dump(rng() % 2 == 0 ? -1 : 1);
        const auto out = p.parse(text);
        ASSERT_TRUE(out) << text;
        ASSERT_EQ(*out, p.project(doc)) << text;

        for (int changes = 1 + static_cast<int>(rng() % 3); changes > 0 && !text.empty(); --changes)
            text[rng() % text.size()] = alphabet[rng() % alphabet.size()];
        SCOPED_TRACE(text);
        std::optional<json> reference;
        bool out_of_range = false;
        try {
            reference = json::parse(text);
        } catch (const json::out_of_range&) {
            out_of_range = true; // a number too large: only checked where it is kept
        } catch (const json::parse_error&) {
        }
        const auto changed = p.parse(text);
        if (reference) {
            ASSERT_TRUE(changed);
            EXPECT_EQ(*changed, p.project(*reference));
            ++accepted_after_change;
        } else if (!out_of_range) {
            EXPECT_FALSE(changed);
        }
    }
    EXPECT_GT(accepted_after_change, 100); // the changes left enough documents valid to compare
}

} // namespace
} // namespace kprov::gardener
