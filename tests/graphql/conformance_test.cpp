// Conformance: kprov and Debian's python3-graphql-core (a port of graphql-js) must agree on which
// documents are valid against schemas/provisioner.graphql: the hand-written documents of
// documents.json and hundreds of broken ones made from them by deleting, duplicating, swapping
// and replacing tokens.

#include "api/graphql/lexer.hpp"
#include "graphql_testing.hpp"
#include "python_graphql_core.hpp"
#include "support/skip.hpp"

#include <gtest/gtest.h>
#include <random>
#include <set>

namespace kprov::api::graphql {
namespace {

using nlohmann::json;

std::vector<std::string> seed_documents() {
    return json::parse(testing::read_text_file(std::string(KPROV_SOURCE_DIR) +
                                               "/tests/graphql/documents.json"))
        .get<std::vector<std::string>>();
}

std::string render(const std::vector<std::string_view>& tokens) {
    std::string out;
    for (const auto& t : tokens) {
        if (!out.empty())
            out += ' ';
        out += t;
    }
    return out;
}

/// Broken (and sometimes still valid) variants of `doc`, reproducible from `rng`.
std::vector<std::string> mutants(const std::string& doc, std::mt19937& rng, int count) {
    static const std::vector<std::string_view> k_names = {"runtimeStatus",
                                                          "runtimeOperationStatus",
                                                          "provisionRuntime",
                                                          "id",
                                                          "state",
                                                          "zones",
                                                          "name",
                                                          "config",
                                                          "foo",
                                                          "on",
                                                          "query",
                                                          "mutation",
                                                          "fragment",
                                                          "true",
                                                          "Int",
                                                          "String",
                                                          "OperationStatus",
                                                          "RuntimeStatus",
                                                          "skip",
                                                          "include",
                                                          "Production",
                                                          "awsZones",
                                                          "lastError",
                                                          "__type",
                                                          "__typename",
                                                          "kubeconfig",
                                                          "gardenerConfig",
                                                          "Labels",
                                                          "Boolean",
                                                          "deprecated"};
    static const std::vector<std::string_view> k_values = {
        "1",     "\"s\"",       "1.5",        "true",       "Production", "[1]",           "{a: 1}",
        "$id",   "$nope",       "2147483647", "2147483648", "[\"a\"]",    "{name: \"n\"}", "-0",
        "Merge", "\"x\\u0041\""};
    static const std::vector<std::string_view> k_punctuators = {
        "{", "}", "(", ")", "[", "]", ":", "$", "!", "@", "...", "=", "|", "&"};
    const std::vector<Token> tokens = tokenize(doc, 100000);
    std::vector<std::string_view> raw;
    for (const auto& t : tokens)
        if (t.kind != TokenKind::End)
            raw.push_back(t.raw);
    std::vector<std::string> out;
    for (int n = 0; n < count; ++n) {
        std::vector<std::string_view> m = raw;
        std::uniform_int_distribution<std::size_t> pick(0, m.size() - 1);
        const std::size_t i = pick(rng);
        auto choose = [&](const std::vector<std::string_view>& from) {
            return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
        };
        switch (n % 10) {
        case 0:
            m.erase(m.begin() + static_cast<std::ptrdiff_t>(i));
            break;
        case 1:
            m.insert(m.begin() + static_cast<std::ptrdiff_t>(i), m[i]);
            break;
        case 2:
            if (i + 1 < m.size())
                std::swap(m[i], m[i + 1]);
            break;
        case 3:
        case 4: { // a name for a name: unknown fields, types, arguments, directives
            std::vector<std::size_t> names;
            for (std::size_t k = 0; k < tokens.size(); ++k)
                if (tokens[k].kind == TokenKind::Name)
                    names.push_back(k);
            if (!names.empty())
                m[names[std::uniform_int_distribution<std::size_t>(0, names.size() - 1)(rng)]] =
                    choose(k_names);
            break;
        }
        case 5: { // a value for a value: wrong literal types
            std::vector<std::size_t> values;
            for (std::size_t k = 1; k < tokens.size(); ++k)
                if (tokens[k - 1].kind == TokenKind::Colon &&
                    (tokens[k].kind == TokenKind::String || tokens[k].kind == TokenKind::Int ||
                     tokens[k].kind == TokenKind::Name || tokens[k].kind == TokenKind::Dollar))
                    values.push_back(k);
            if (!values.empty()) {
                const std::size_t k =
                    values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
                m[k] = choose(k_values);
                if (tokens[k].kind == TokenKind::Dollar && k + 1 < m.size())
                    m.erase(m.begin() + static_cast<std::ptrdiff_t>(k + 1));
            }
            break;
        }
        case 6: { // an argument or input field dropped: missing required values
            std::vector<std::size_t> fields;
            for (std::size_t k = 1; k + 1 < tokens.size(); ++k)
                if (tokens[k].kind == TokenKind::Colon && tokens[k - 1].kind == TokenKind::Name &&
                    (tokens[k + 1].kind == TokenKind::String ||
                     tokens[k + 1].kind == TokenKind::Int))
                    fields.push_back(k - 1);
            if (!fields.empty()) {
                const auto k = static_cast<std::ptrdiff_t>(
                    fields[std::uniform_int_distribution<std::size_t>(0, fields.size() - 1)(rng)]);
                m.erase(m.begin() + k, m.begin() + k + 3);
            }
            break;
        }
        case 7: { // a variable's type changed: wrong positions, non-input and unknown types
            static const std::vector<std::string_view> k_types = {
                "Int",   "String", "Boolean",           "KymaProfile", "RuntimeStatus",
                "Strin", "Labels", "UpgradeShootInput", "ID"};
            std::vector<std::size_t> types;
            for (std::size_t k = 2; k < tokens.size(); ++k)
                if (tokens[k].kind == TokenKind::Name && tokens[k - 1].kind == TokenKind::Colon &&
                    tokens[k - 2].kind == TokenKind::Name && k >= 3 &&
                    tokens[k - 3].kind == TokenKind::Dollar)
                    types.push_back(k);
            if (!types.empty())
                m[types[std::uniform_int_distribution<std::size_t>(0, types.size() - 1)(rng)]] =
                    choose(k_types);
            break;
        }
        case 8: { // a directive or a field added after a field
            static const std::vector<std::string_view> k_additions = {
                "@skip(if: $undefined)",
                "@include(if: true)",
                "@skip(if: 1)",
                "@deprecated",
                "@include",
                "__typename",
                "id",
                "a: __typename",
                "__typename: id",
                "@skip(if: true) @skip(if: false)"};
            std::vector<std::size_t> names;
            for (std::size_t k = 1; k < tokens.size(); ++k)
                if (tokens[k].kind == TokenKind::Name && (tokens[k - 1].kind == TokenKind::BraceL ||
                                                          tokens[k - 1].kind == TokenKind::Name))
                    names.push_back(k);
            if (!names.empty())
                m.insert(m.begin() + static_cast<std::ptrdiff_t>(
                                         names[std::uniform_int_distribution<std::size_t>(
                                             0, names.size() - 1)(rng)] +
                                         1),
                         choose(k_additions));
            break;
        }
        default:
            m.insert(m.begin() + static_cast<std::ptrdiff_t>(i), choose(k_punctuators));
            break;
        }
        out.push_back(render(m));
    }
    return out;
}

json python_verdicts(const std::vector<std::string>& documents) {
    int status = 0;
    return json::parse(testing::run_python_check("conformance.py", json(documents).dump(), status),
                       nullptr, false);
}

bool mentions(const json& messages, std::string_view what) {
    for (const auto& m : messages)
        if (m.is_string() && m.get<std::string>().find(what) != std::string::npos)
            return true;
    return false;
}

/// Where graphql-core 2 (2018) and the October 2021 spec that kprov follows disagree.
std::string known_divergence(const json& python, const json& kprov_messages) {
    const json& py = python["messages"];
    if (python["verdict"] == "crash")
        return "graphql-core crashed";
    if (mentions(py, "Unexpected Name \"null\""))
        return "graphql-core 2 has no null literal";
    if (mentions(py, "will not use the default value"))
        return "non-null variables may have defaults since 2018";
    if (mentions(kprov_messages, "can only be used once at this location"))
        return "graphql-core 2 lacks UniqueDirectivesPerLocation";
    if (mentions(kprov_messages, "definition is not executable"))
        return "graphql-core 2 lacks ExecutableDefinitions";
    return {};
}

/// A message with its quoted names and values blanked ("Unknown type \"\".").
std::string shape(const std::string& message) {
    std::string out;
    bool quoted = false;
    for (const char c : message) {
        if (c == '"')
            quoted = !quoted;
        if (!quoted || c == '"')
            out += c;
    }
    return out.substr(0, out.find(". Did you mean"));
}

TEST(GraphQLConformance, KprovAndGraphqlCoreAgreeOnValidity) {
    if (!testing::python_graphql_core_available())
        KPROV_SKIP_UNLESS_CI("python3-graphql-core is not installed (scripts/install-deps)");
    std::vector<std::string> documents = seed_documents();
    const std::size_t seeds = documents.size();
    std::mt19937 rng(20261130);
    for (std::size_t i = 0; i < seeds; ++i)
        for (auto& m : mutants(documents[i], rng, 16))
            documents.push_back(std::move(m));

    const json python = python_verdicts(documents);
    ASSERT_TRUE(python.is_array()) << "conformance.py gave no verdicts";
    ASSERT_EQ(python.size(), documents.size());

    std::size_t accepted = 0;
    std::size_t rejected = 0;
    std::size_t diverging = 0;
    std::set<std::string> validation_messages; // names and values blanked: which rules fired
    for (std::size_t i = 0; i < documents.size(); ++i) {
        const Response r = check_document(testing::provisioner_schema(), documents[i]);
        const bool kprov_ok = r.outcome == Response::Outcome::Executed;
        const bool python_ok = python[i]["verdict"] == "valid";
        json kprov_messages = json::array();
        for (const auto& e : r.body().value("errors", json::array()))
            kprov_messages.push_back(e["message"]);
        if (i < seeds) {
            EXPECT_TRUE(kprov_ok && python_ok)
                << "seed " << i << " is not valid: " << documents[i]
                << "\nkprov: " << kprov_messages << "\ngraphql-core: " << python[i];
        }
        (kprov_ok ? accepted : rejected) += 1;
        if (r.outcome == Response::Outcome::ValidationFailed)
            for (const auto& m : kprov_messages)
                validation_messages.insert(shape(m.get<std::string>()));
        if (kprov_ok == python_ok)
            continue;
        if (!known_divergence(python[i], kprov_messages).empty()) {
            ++diverging;
            continue;
        }
        ADD_FAILURE() << "document " << i << ": kprov " << (kprov_ok ? "accepts" : "rejects")
                      << ", graphql-core " << (python_ok ? "accepts" : "rejects") << "\n"
                      << documents[i] << "\nkprov: " << kprov_messages
                      << "\ngraphql-core: " << python[i];
    }
    // The mix must exercise both verdicts, or the comparison proves nothing.
    EXPECT_GE(rejected, documents.size() / 2);
    EXPECT_GE(accepted, seeds);
    EXPECT_LE(diverging, documents.size() / 20);
    EXPECT_GE(validation_messages.size(), 15u); // the mutants reach many rules, not just syntax
    std::printf("conformance: %zu documents, %zu accepted, %zu rejected, %zu known divergences, "
                "%zu kinds of validation error\n",
                documents.size(), accepted, rejected, diverging, validation_messages.size());
}

} // namespace
} // namespace kprov::api::graphql
