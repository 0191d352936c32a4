// Runtime and upgrade files: YAML typing, JSON, errors with positions, the examples, and the
// JSON Schemas kept in step with the parser.

#include "cli/runtime_file.hpp"
#include "cli/runtime_lifecycle.hpp"
#include "engine/error.hpp"
#include "engine/input/runtime_input.hpp"
#include "engine/kyma_lifecycle.hpp"
#include "support/test_databases.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace kprov::cli {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> problem_lines(const std::function<void()>& call) {
    try {
        call();
    } catch (const ValidationError& e) {
        std::vector<std::string> out;
        for (const auto& p : e.problems())
            out.push_back(p.path.empty() ? p.message : p.path + ": " + p.message);
        return out;
    }
    ADD_FAILURE() << "no ValidationError";
    return {};
}

std::vector<std::string> text_problems(const std::string& text) {
    return problem_lines([&] { (void)read_runtime_text(text, "rt.yaml"); });
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// ---------------------------------------------------------------------------------------------
// YAML and JSON

TEST(RuntimeFile, YamlScalarsAreTypedOnlyWhenPlain) {
    const auto doc = read_runtime_text(R"(
plain_true: true
title_false: False
quoted_true: "true"
single_quoted: 'false'
tagged: !!str 12
integer: 42
negative: -7
hex: 0x1F
octal: 0o17
decimal: 2.5
exponent: 1e3
version: 1.29.2
quoted_number: "4711"
tilde: ~
null_word: null
empty:
quoted_null: "null"
yes_word: yes
block: |
  two
  lines
tagged_int: !!int "7"
tagged_bool: !!bool "true"
)",
                                       "rt.yaml");
    EXPECT_EQ(doc["plain_true"], true);
    EXPECT_EQ(doc["title_false"], false);
    EXPECT_EQ(doc["quoted_true"], "true");
    EXPECT_EQ(doc["single_quoted"], "false");
    EXPECT_EQ(doc["tagged"], "12");
    EXPECT_EQ(doc["integer"], 42);
    EXPECT_TRUE(doc["integer"].is_number_integer());
    EXPECT_EQ(doc["negative"], -7);
    EXPECT_EQ(doc["hex"], 31);
    EXPECT_EQ(doc["octal"], 15);
    EXPECT_EQ(doc["decimal"], 2.5);
    EXPECT_EQ(doc["exponent"], 1000.0);
    EXPECT_FALSE(doc["exponent"].is_number_integer());
    EXPECT_EQ(doc["version"], "1.29.2");
    EXPECT_EQ(doc["quoted_number"], "4711");
    EXPECT_TRUE(doc["tilde"].is_null());
    EXPECT_TRUE(doc["null_word"].is_null());
    EXPECT_TRUE(doc.contains("empty"));
    EXPECT_TRUE(doc["empty"].is_null());
    EXPECT_EQ(doc["quoted_null"], "null");
    EXPECT_EQ(doc["yes_word"], "yes"); // a boolean only in YAML 1.1
    EXPECT_EQ(doc["block"], "two\nlines\n");
    EXPECT_EQ(doc["tagged_int"], 7);
    EXPECT_EQ(doc["tagged_bool"], true);
}

TEST(RuntimeFile, NestedMappingsListsAnchorsAndAliases) {
    const auto doc = read_runtime_text(R"(
zones: &zones [a, b]
again: *zones
nested:
  - name: x
    flags: {on: true}
)",
                                       "rt.yaml");
    EXPECT_EQ(doc["zones"], json({"a", "b"}));
    EXPECT_EQ(doc["again"], json({"a", "b"}));
    EXPECT_EQ(doc["nested"][0]["flags"]["on"], true);
    EXPECT_EQ(doc["nested"][0]["name"], "x");
}

TEST(RuntimeFile, JsonIsReadAsJson) {
    const auto doc =
        read_runtime_text(R"({"a": 1, "b": [true, null, "x"], "c": {"d": 1.5}})", "rt.json");
    EXPECT_EQ(doc, json::parse(R"({"a": 1, "b": [true, null, "x"], "c": {"d": 1.5}})"));
}

TEST(RuntimeFile, YamlSyntaxErrorsNameFileLineAndColumn) {
    EXPECT_THAT(text_problems("a: 1\nb: [1, 2\nc: 3\n"), ElementsAre(HasSubstr("rt.yaml:3:")));
    EXPECT_THAT(text_problems("a: 1\nb: [1, 2\nc: 3\n"), ElementsAre(HasSubstr("not valid YAML")));
    EXPECT_THAT(text_problems("a: 1\n  b: 2\n"), ElementsAre(HasSubstr("rt.yaml:2:")));
}

TEST(RuntimeFile, JsonSyntaxErrorsNameFileLineAndColumn) {
    EXPECT_THAT(text_problems("{\n  \"a\": 1\n  \"b\": 2\n}\n"),
                ElementsAre(HasSubstr("rt.yaml:3:5: not valid JSON: syntax error while parsing "
                                      "object - unexpected string literal")));
    // What YAML's flow style also reads is taken as YAML: the same data.
    EXPECT_EQ(read_runtime_text("{\"a\": 1,}", "rt.json"), json({{"a", 1}}));
}

TEST(RuntimeFile, DuplicateKeysAreErrors) {
    EXPECT_THAT(text_problems("a:\n  region: x\n  zone: y\n  region: z\nb: 1\nb: 2\n"),
                ElementsAre("a.region: is given twice (first at line 2) (rt.yaml:4:3)",
                            "b: is given twice (first at line 5) (rt.yaml:6:1)"));
    EXPECT_THAT(text_problems("{\"a\": {\"k\": 1,\n \"k\": 2}}"),
                ElementsAre("a.k: is given twice (first at line 1) (rt.yaml:2:2)"));
}

TEST(RuntimeFile, DocumentsThatAreNotOneMappingAreRefused) {
    EXPECT_THAT(text_problems(""), ElementsAre(HasSubstr("rt.yaml is empty")));
    EXPECT_THAT(text_problems("# nothing but a comment\n"), ElementsAre(HasSubstr("is empty")));
    EXPECT_THAT(text_problems("- a\n- b\n"),
                ElementsAre("rt.yaml: expected a mapping of fields (YAML) or an object (JSON), "
                            "got a list"));
    EXPECT_THAT(text_problems("[1, 2]"), ElementsAre(HasSubstr("got a list")));
    EXPECT_THAT(text_problems("just text"), ElementsAre(HasSubstr("got text")));
    EXPECT_THAT(text_problems("a: 1\n---\nb: 2\n"),
                ElementsAre("rt.yaml:3:1: a second YAML document; a file holds exactly one"));
}

TEST(RuntimeFile, OddYamlIsReportedNotCrashedOn) {
    EXPECT_THAT(text_problems("a: &x [*x]\n"), ElementsAre(HasSubstr("nests deeper than 64")));
    EXPECT_THAT(text_problems("? [a, b]\n: 1\n"), ElementsAre(HasSubstr("key that is not text")));
    EXPECT_THAT(text_problems("a: !custom x\n"),
                ElementsAre("a: has the tag !custom, which kprov does not know (rt.yaml:1:4)"));
    EXPECT_THAT(text_problems("a: !!int x\n"), ElementsAre(HasSubstr("is not a valid int")));
}

TEST(RuntimeFile, ReadsFilesAndStdin) {
    kprov::testing::TempDir dir;
    const auto path = dir.file("rt.yaml");
    std::ofstream(path) << "runtimeInput: 1\n";
    EXPECT_EQ(read_runtime_file(path), json({{"runtimeInput", 1}}));

    std::istringstream input("{\"kymaConfig\": 2}");
    auto* saved = std::cin.rdbuf(input.rdbuf());
    const auto from_stdin = read_runtime_file("-");
    std::cin.rdbuf(saved);
    EXPECT_EQ(from_stdin, json({{"kymaConfig", 2}}));

    std::ofstream(dir.file("bad.yaml")) << "a: [\n";
    EXPECT_THAT(problem_lines([&] { (void)read_runtime_file(dir.file("bad.yaml")); }),
                ElementsAre(HasSubstr(dir.file("bad.yaml") + ":2:")));
    try {
        (void)read_runtime_file(dir.file("missing.yaml"));
        ADD_FAILURE() << "no error";
    } catch (const ValidationError&) {
        ADD_FAILURE() << "a missing file is not a validation error";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("cannot read " + dir.file("missing.yaml")));
    }
    EXPECT_THROW((void)read_runtime_file(dir.path()), Error);
}

TEST(RuntimeFile, QuotedTextInAFieldThatWantsABooleanIsReportedByTheParser) {
    auto doc = read_runtime_text(read_text(KPROV_SOURCE_DIR "/examples/gcp.yaml"), "gcp.yaml");
    doc["clusterConfig"]["gardenerConfig"]["euAccess"] = read_runtime_text("v: \"true\"", "x")["v"];
    EXPECT_THAT(problem_lines([&] { (void)engine::parse_provision_input(doc); }),
                ElementsAre("clusterConfig.gardenerConfig.euAccess: must be true or false, got "
                            "\"true\""));
}

// ---------------------------------------------------------------------------------------------
// Examples

const engine::ConversionOptions k_options{"kyma-dev", false, false, true, false, {}};

// Which schema an example names in its yaml-language-server modeline.
std::string schema_of(const std::string& text) {
    const std::string marker = "# yaml-language-server: $schema=../schemas/";
    const auto at = text.find(marker);
    if (at == std::string::npos)
        return {};
    const auto start = at + marker.size();
    return text.substr(start, text.find('\n', start) - start);
}

std::vector<std::filesystem::path> example_files() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(KPROV_SOURCE_DIR "/examples")) {
        const auto ext = entry.path().extension();
        if (ext == ".yaml" || ext == ".json")
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

TEST(RuntimeFileExamples, EveryExampleParsesAndValidates) {
    std::set<std::string> seen;
    for (const auto& file : example_files()) {
        const auto text = read_text(file.string());
        const auto schema = schema_of(text);
        if (schema.empty())
            continue; // not a runtime or upgrade file (a config sample, say)
        seen.insert(file.filename().string());
        SCOPED_TRACE(file.string());
        const auto doc = read_runtime_file(file.string());
        // An example for Kyma Lifecycle Manager says so; it is checked with that backend's rules.
        const bool klm = text.find("KPROV_KYMA_INSTALLER=lifecycle-manager") != std::string::npos;
        auto options = k_options;
        options.kyma_requires_runtime_agent = !klm;
        if (schema == "runtime.schema.json") {
            auto graphql = doc;
            EXPECT_NO_THROW(take_lifecycle(graphql));
            const auto input = engine::parse_provision_input(graphql);
            EXPECT_NO_THROW(engine::validate_provision(input, options));
            engine::Runtime runtime;
            EXPECT_NO_THROW(runtime = engine::to_runtime(input, "rt", "tenant", "", {}, options));
            if (klm) {
                ASSERT_TRUE(runtime.kyma);
                EXPECT_THAT(engine::unrepresentable_kyma_fields(*runtime.kyma),
                            ::testing::IsEmpty())
                    << "it would be refused without KPROV_KYMA_LOSSY=warn";
            }
        } else if (schema == "kyma.schema.json") {
            EXPECT_NO_THROW((void)engine::read_kyma_upgrade_input(doc, options));
        } else {
            EXPECT_EQ(schema, "upgrade.schema.json");
            EXPECT_NO_THROW(engine::validate_upgrade(engine::parse_upgrade_input(doc)));
        }
    }
    for (const char* name : {"aws.yaml", "azure.yaml", "gcp.yaml", "gcp-kyma.yaml",
                             "gcp-modules.yaml", "openstack.yaml", "upgrade.yaml", "kyma.yaml"})
        EXPECT_TRUE(seen.count(name)) << name;
}

TEST(RuntimeFileExamples, EachProviderExampleIsForItsCloud) {
    for (const char* cloud : {"aws", "azure", "gcp", "openstack"}) {
        const auto doc =
            read_runtime_file(std::string(KPROV_SOURCE_DIR "/examples/") + cloud + ".yaml");
        const auto runtime =
            engine::to_runtime(engine::parse_provision_input(doc), "rt", "t", "", {}, k_options);
        EXPECT_EQ(engine::provider_type_of(runtime.gardener.provider), cloud);
    }
    const auto azure =
        engine::parse_provision_input(read_runtime_file(KPROV_SOURCE_DIR "/examples/azure.yaml"));
    ASSERT_TRUE(azure.gardener.provider_config.azure);
    EXPECT_TRUE(azure.gardener.provider_config.azure->azure_zones);
    EXPECT_EQ(azure.gardener.provider_config.azure->enable_nat_gateway, true);
}

// ---------------------------------------------------------------------------------------------
// The JSON Schemas and the parser describe the same fields.

json load_schema(const char* name) {
    return json::parse(read_text(std::string(KPROV_SOURCE_DIR "/schemas/") + name));
}

// The runtime schema without kprov's own lifecycle block and cloudProfile: the GraphQL input
// alone.
json graphql_part(json schema) {
    schema["properties"].erase("lifecycle");
    schema["definitions"]["GardenerConfigInput"]["properties"].erase("cloudProfile");
    schema["definitions"].erase("CloudProfileReference");
    schema["definitions"].erase("RuntimeLifecycle");
    schema["definitions"].erase("HibernationSchedule");
    return schema;
}

// A property's schema without the null alternative that optional fields carry.
const json& non_null(const json& property) {
    if (property.contains("anyOf"))
        return property["anyOf"][0];
    if (property.contains("allOf"))
        return property["allOf"][0];
    return property;
}

bool has_type(const json& schema, const std::string& type) {
    if (!schema.contains("type"))
        return false;
    const json& t = schema["type"];
    return t.is_string() ? t == type : std::find(t.begin(), t.end(), type) != t.end();
}

std::string ref_name(const json& schema) {
    const std::string ref = schema.value("$ref", "");
    const std::string prefix = "#/definitions/";
    return ref.rfind(prefix, 0) == 0 ? ref.substr(prefix.size()) : "";
}

// Compares one object schema with the parser's table entry of the same name.
void compare_type(const json& schema, const std::string& name) {
    SCOPED_TRACE(name);
    const auto* spec = engine::find_input_type(name);
    ASSERT_NE(spec, nullptr) << "the parser has no input type " << name;
    EXPECT_EQ(schema.value("additionalProperties", true), false);

    std::set<std::string> spec_fields, spec_required, schema_fields, schema_required;
    for (const auto& field : spec->fields) {
        spec_fields.insert(std::string(field.name));
        if (field.required)
            spec_required.insert(std::string(field.name));
    }
    for (const auto& [field, _] : schema["properties"].items())
        schema_fields.insert(field);
    for (const auto& field : schema.value("required", json::array()))
        schema_required.insert(field.get<std::string>());
    EXPECT_EQ(schema_fields, spec_fields);
    EXPECT_EQ(schema_required, spec_required);

    for (const auto& field : spec->fields) {
        const std::string fname(field.name);
        if (!schema["properties"].contains(fname))
            continue;
        SCOPED_TRACE(fname);
        const json& property = schema["properties"][fname];
        // Optional fields accept null, as GraphQL's nullable inputs do; required ones do not.
        const bool nullable = property.contains("anyOf") || has_type(property, "null");
        EXPECT_EQ(nullable, !field.required);
        const json* value = &non_null(property);
        if (field.list) {
            EXPECT_TRUE(has_type(*value, "array"));
            value = &(*value)["items"];
        }
        switch (field.kind) {
        case engine::InputKind::String:
            EXPECT_TRUE(has_type(*value, "string"));
            break;
        case engine::InputKind::Int:
            EXPECT_TRUE(has_type(*value, "integer"));
            EXPECT_GE(value->value("minimum", -2147483648LL), -2147483648LL);
            EXPECT_EQ(value->value("maximum", 0LL), 2147483647LL);
            break;
        case engine::InputKind::Boolean:
            EXPECT_TRUE(has_type(*value, "boolean"));
            break;
        case engine::InputKind::Labels:
            EXPECT_TRUE(has_type(*value, "object"));
            EXPECT_EQ(value->value("additionalProperties", false), true);
            break;
        case engine::InputKind::Enum: {
            std::set<std::string> expected, actual;
            for (auto v : engine::input_enum_values(field.type))
                expected.insert(std::string(v));
            for (const auto& v : (*value)["enum"])
                if (!v.is_null())
                    actual.insert(v.get<std::string>());
            EXPECT_EQ(actual, expected);
            break;
        }
        case engine::InputKind::Object:
            EXPECT_EQ(ref_name(*value), field.type);
            break;
        }
    }
}

void compare_schema(const json& schema, const std::string& root) {
    EXPECT_EQ(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    EXPECT_TRUE(schema.contains("$id"));
    EXPECT_EQ(schema["title"], root);
    compare_type(schema, root);
    for (const auto& [name, definition] : schema["definitions"].items()) {
        EXPECT_EQ(definition["title"], name);
        compare_type(definition, name);
    }
}

// Every type the parser reaches from `root`.
void reachable(const std::string& root, std::set<std::string>& out) {
    if (!out.insert(root).second)
        return;
    for (const auto& field : engine::find_input_type(root)->fields)
        if (field.kind == engine::InputKind::Object)
            reachable(std::string(field.type), out);
}

TEST(RuntimeFileSchema, RuntimeSchemaDescribesTheParsersFields) {
    const auto schema = graphql_part(load_schema("runtime.schema.json"));
    compare_schema(schema, "ProvisionRuntimeInput");
    std::set<std::string> types, defined{"ProvisionRuntimeInput"};
    reachable("ProvisionRuntimeInput", types);
    for (const auto& [name, _] : schema["definitions"].items())
        defined.insert(name);
    EXPECT_EQ(defined, types);
}

TEST(RuntimeFileSchema, UpgradeSchemaDescribesTheParsersFields) {
    const auto schema = load_schema("upgrade.schema.json");
    compare_schema(schema, "UpgradeShootInput");
    std::set<std::string> types, defined{"UpgradeShootInput"};
    reachable("UpgradeShootInput", types);
    for (const auto& [name, _] : schema["definitions"].items())
        defined.insert(name);
    EXPECT_EQ(defined, types);
}

TEST(RuntimeFileSchema, KymaSchemaDescribesTheParsersFields) {
    const auto schema = load_schema("kyma.schema.json");
    compare_schema(schema, "UpgradeRuntimeInput");
    std::set<std::string> types, defined{"UpgradeRuntimeInput"};
    reachable("UpgradeRuntimeInput", types);
    for (const auto& [name, _] : schema["definitions"].items())
        defined.insert(name);
    EXPECT_EQ(defined, types);
    // The Kyma types are the runtime file's, word for word.
    const auto runtime = load_schema("runtime.schema.json");
    for (const auto& [name, definition] : schema["definitions"].items())
        EXPECT_EQ(definition, runtime["definitions"][name]) << name;
}

// A value the schema accepts for `property`, with every field of objects filled in.
json sample(const json& root, const json& property) {
    const json& s = non_null(property);
    if (const auto ref = ref_name(s); !ref.empty()) {
        const json& definition = root["definitions"][ref];
        json object = json::object();
        for (const auto& [name, field] : definition["properties"].items())
            object[name] = sample(root, field);
        return object;
    }
    if (s.contains("enum"))
        return s["enum"][0];
    if (s.contains("examples"))
        return s["examples"][0];
    if (has_type(s, "array"))
        return json::array({sample(root, s["items"])});
    if (has_type(s, "integer"))
        return s.value("minimum", 0) > 0 ? s.value("minimum", 0) : 1;
    if (has_type(s, "boolean"))
        return true;
    if (has_type(s, "object"))
        return json{{"any", {1, "two"}}};
    if (s.value("pattern", "").find("25[0-5]") != std::string::npos)
        return "10.250.0.0/16";
    if (s.value("pattern", "") == "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
        return "shoot";
    return "text";
}

json sample_document(const json& root) {
    json document = json::object();
    for (const auto& [name, field] : root["properties"].items())
        document[name] = sample(root, field);
    return document;
}

// Black-box: a document with every field the schema names, each with a value of the schema's
// type, is accepted by the parser; a field the schema does not name is refused by both.
TEST(RuntimeFileSchema, TheParserAcceptsEveryFieldTheSchemaNames) {
    const auto runtime = graphql_part(load_schema("runtime.schema.json"));
    auto document = sample_document(runtime);
    ASSERT_NO_THROW((void)engine::parse_provision_input(document)) << document.dump(2);
    document["clusterConfig"]["gardenerConfig"]["notInTheSchema"] = 1;
    EXPECT_THAT(problem_lines([&] { (void)engine::parse_provision_input(document); }),
                ElementsAre(HasSubstr("unknown field \"notInTheSchema\"")));

    const auto upgrade = load_schema("upgrade.schema.json");
    document = sample_document(upgrade);
    ASSERT_NO_THROW((void)engine::parse_upgrade_input(document)) << document.dump(2);
    EXPECT_EQ(document["gardenerConfig"].size(),
              engine::find_input_type("GardenerUpgradeInput")->fields.size());
}

// The lifecycle block: the schema names the parser's fields, in its order, and the parser takes
// a sample of every one of them.
TEST(RuntimeFileSchema, LifecycleSchemaDescribesTheLifecycleBlock) {
    const auto schema = load_schema("runtime.schema.json");
    const json& definition = schema["definitions"]["RuntimeLifecycle"];
    EXPECT_EQ(definition["title"], "RuntimeLifecycle");
    EXPECT_EQ(definition["additionalProperties"], false);
    std::vector<std::string> names;
    for (const auto& [name, _] : definition["properties"].items())
        names.push_back(name);
    std::vector<std::string> fields = lifecycle_fields();
    std::sort(fields.begin(), fields.end());
    EXPECT_EQ(names, fields); // nlohmann::json sorts keys
    json document = {{"lifecycle", sample(schema, schema["properties"]["lifecycle"])}};
    std::optional<LifecycleSpec> spec;
    // As apply reads it: provision refuses `hibernated: true`, which the schema allows.
    ASSERT_NO_THROW(spec = take_lifecycle(document, LifecycleUse::Apply)) << document.dump();
    EXPECT_FALSE(document.contains("lifecycle")) << "taken out of the document";
    ASSERT_TRUE(spec);
    EXPECT_TRUE(spec->is_protected);
    EXPECT_TRUE(spec->protected_given);
    EXPECT_TRUE(spec->hibernated.has_value());
    EXPECT_EQ(spec->lifetime, std::chrono::hours(2));
    const std::vector<engine::HibernationSchedule> schedules = {
        {"0 20 * * MON-FRI", "0 7 * * MON-FRI", "Europe/Berlin"}};
    EXPECT_EQ(spec->hibernation_schedules, schedules);
}

TEST(RuntimeLifecycleBlock, EveryProblemIsNamedWithItsValue) {
    json document = {{"lifecycle",
                      {{"protected", "yes"},
                       {"lifetime", "forever"},
                       {"hibernated", true},
                       {"hibernationSchedules",
                        json::array({{{"start", "0 25 * * *"}, {"location", "Europe/../x"}},
                                     {{"location", "UTC"}},
                                     {{"end", "0 7 * *"}, {"strat", "x"}}})},
                       {"lifetim", "2h"}}},
                     {"runtimeInput", {{"name", "rt"}}}};
    EXPECT_THAT(problem_lines([&] { take_lifecycle(document); }),
                ::testing::UnorderedElementsAre(
                    HasSubstr("lifecycle.protected: must be true or false, not \"yes\""),
                    HasSubstr("lifecycle.lifetime: must be a Go duration such as \"2h\" or "
                              "\"30m\", not \"forever\""),
                    HasSubstr("lifecycle.hibernated: true cannot be honoured by provision"),
                    HasSubstr("lifecycle.hibernationSchedules[2].strat: unknown field \"strat\"; "
                              "did you mean \"start\"?"),
                    HasSubstr("lifecycle.lifetim: unknown field \"lifetim\"; did you mean "
                              "\"lifetime\"?")));
    json bounds = {{"lifecycle", {{"lifetime", "500ms"}}}};
    EXPECT_THAT(problem_lines([&] { take_lifecycle(bounds); }),
                ElementsAre(HasSubstr("between 1s and 87600h")));
    json not_a_mapping = {{"lifecycle", json::array()}};
    EXPECT_THAT(problem_lines([&] { take_lifecycle(not_a_mapping); }),
                ElementsAre(HasSubstr("lifecycle: must be a mapping")));
    json none = {{"runtimeInput", {{"name", "rt"}}}};
    EXPECT_FALSE(take_lifecycle(none));
    // Without shape problems, the schedules' own: each cron field and location by index.
    json schedules = {{"lifecycle",
                       {{"hibernationSchedules",
                         json::array({{{"start", "0 25 * * *"}, {"location", "Europe/../x"}},
                                      {{"location", "UTC"}},
                                      {{"end", "0 7 * *"}},
                                      {{"start", "*/0 8-6 ? JAN-DEC SUN,MON,FOO"}},
                                      {{"start", "@daily"}, {"end", "30 7 1-15 * 1-5"}}})}}}};
    EXPECT_THAT(
        problem_lines([&] { take_lifecycle(schedules); }),
        ElementsAre(
            HasSubstr("lifecycle.hibernationSchedules[0].start: \"0 25 * * *\": \"25\" is not a "
                      "valid hour (0-23)"),
            HasSubstr("lifecycle.hibernationSchedules[0].location: \"Europe/../x\" is not a "
                      "time zone name"),
            HasSubstr("lifecycle.hibernationSchedules[1]: needs a start (hibernate), an end "
                      "(wake up) or both"),
            HasSubstr("lifecycle.hibernationSchedules[2].end: \"0 7 * *\" has 4 fields; a cron "
                      "expression has 5"),
            HasSubstr("lifecycle.hibernationSchedules[3].start: \"*/0 8-6 ? JAN-DEC "
                      "SUN,MON,FOO\": the step of \"*/0\" must be a number from 1 to 60")));
    json many = {{"lifecycle", {{"hibernationSchedules", json::array()}}}};
    for (int i = 0; i < 33; ++i)
        many["lifecycle"]["hibernationSchedules"].push_back({{"start", "@daily"}});
    EXPECT_THAT(problem_lines([&] { take_lifecycle(many); }),
                ElementsAre(HasSubstr("has 33 schedules; at most 32")));
    json hibernated = {{"lifecycle", {{"hibernated", true}}}};
    const auto applied = take_lifecycle(hibernated, LifecycleUse::Apply);
    ASSERT_TRUE(applied);
    EXPECT_EQ(applied->hibernated, true) << "apply honours it";
    EXPECT_FALSE(applied->protected_given) << "left out: apply leaves protection as it is";
    json quiet = {{"lifecycle", {{"hibernated", false}, {"lifetime", "1h30m"}}}};
    const auto spec = take_lifecycle(quiet);
    ASSERT_TRUE(spec);
    EXPECT_FALSE(spec->is_protected);
    EXPECT_EQ(spec->lifetime, std::chrono::minutes(90));
}

// With a JSON Schema validator at hand (Debian's python3-jsonschema, or a python3 that has the
// jsonschema module), the examples are checked against the schemas by a real validator.
TEST(RuntimeFileSchema, ExamplesAreValidUnderTheSchemasByAJsonSchemaValidator) {
    if (std::system("/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1") != 0) {
        if (kprov::testing::ci_requires_everything())
            FAIL() << "KPROV_CI=1 but Debian's python3-jsonschema is not installed";
        GTEST_SKIP() << "Debian's python3-jsonschema is not installed "
                        "(apt-get install python3-jsonschema)";
    }
    kprov::testing::TempDir dir;
    const auto script = dir.file("check.py");
    std::ofstream(script) << R"(import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)
expect_valid = sys.argv[2] == "valid"
failed = False
for path in sys.argv[3:]:
    errors = list(validator.iter_errors(json.load(open(path))))
    for e in errors:
        print(path, "/".join(str(p) for p in e.absolute_path), e.message)
    if bool(errors) == expect_valid:
        failed = True
        print(path, "expected", sys.argv[2])
sys.exit(1 if failed else 0)
)";
    auto run = [&](const std::string& schema, const std::string& expect,
                   const std::vector<std::string>& files) {
        std::string command =
            "/usr/bin/python3 " + script + " " KPROV_SOURCE_DIR "/schemas/" + schema + " " + expect;
        for (const auto& f : files)
            command += " " + f;
        command += " >" + dir.file("out.txt") + " 2>&1";
        EXPECT_EQ(std::system(command.c_str()), 0) << read_text(dir.file("out.txt"));
    };
    std::map<std::string, std::vector<std::string>> valid;
    int index = 0;
    for (const auto& file : example_files()) {
        const auto schema = schema_of(read_text(file.string()));
        if (schema.empty())
            continue;
        const auto out = dir.file(std::to_string(index++) + ".json");
        std::ofstream(out) << read_runtime_file(file.string()).dump();
        valid[schema].push_back(out);
    }
    ASSERT_EQ(valid.size(), 3u); // runtime, upgrade and Kyma files
    for (const auto& [schema, files] : valid)
        run(schema, "valid", files);

    // And the schema refuses what the parser refuses.
    auto doc = read_runtime_file(KPROV_SOURCE_DIR "/examples/gcp.yaml");
    std::vector<std::string> invalid;
    auto write = [&](const json& d) {
        invalid.push_back(dir.file("bad" + std::to_string(invalid.size()) + ".json"));
        std::ofstream(invalid.back()) << d.dump();
    };
    auto unknown = doc;
    unknown["clusterConfig"]["gardenerConfig"]["regoin"] = "x";
    write(unknown);
    auto missing = doc;
    missing["clusterConfig"]["gardenerConfig"].erase("region");
    write(missing);
    auto mistyped = doc;
    mistyped["clusterConfig"]["gardenerConfig"]["autoScalerMin"] = "three";
    write(mistyped);
    run("runtime.schema.json", "invalid", invalid);
}

} // namespace
} // namespace kprov::cli
