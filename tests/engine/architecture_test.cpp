// The engine depends on nothing outside it (ARCHITECTURE.md): no file under src/engine/ may
// include adapters or the libraries they wrap.

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>

namespace {

// An include of kprov's adapters or of a library only they may use (OpenSSL included: the
// engine's random ids come from the kernel, model.cpp).
bool forbidden_in_engine(const std::string& line) {
    static const std::regex forbidden(
        R"(#\s*include\s*[<"](app/|cli/|api/|stores/|gardener/|director/|config/|curl/|sqlite|SQLiteCpp/|pqxx|libpq|CLI/|httplib|yaml-cpp/|spdlog/|openssl/))");
    return std::regex_search(line, forbidden);
}

// A front catching (or casting to) an error type of an adapter.
bool catches_adapter_error(const std::string& line) {
    static const std::regex forbidden(
        R"((catch\s*\(\s*(const\s+)?|dynamic_cast<\s*(const\s+)?)(kprov::)?(gardener|director|stores)::)");
    return std::regex_search(line, forbidden);
}

// No line of any file under the source folders `dirs` is `forbidden`; returns how many
// files were read.
template <typename Forbidden>
int expect_no_line(std::initializer_list<const char*> dirs, Forbidden forbidden) {
    int files = 0;
    for (const char* dir : dirs) {
        for (const auto& entry :
             std::filesystem::recursive_directory_iterator(std::string(KPROV_SOURCE_DIR) + dir)) {
            if (!entry.is_regular_file())
                continue;
            ++files;
            std::ifstream in(entry.path());
            std::string line;
            int number = 0;
            while (std::getline(in, line)) {
                ++number;
                EXPECT_FALSE(forbidden(line))
                    << entry.path().string() << ":" << number << ": " << line;
            }
        }
    }
    return files;
}

TEST(Architecture, ForbiddenIncludesAreRecognized) {
    EXPECT_TRUE(forbidden_in_engine("#include <openssl/rand.h>"));
    EXPECT_TRUE(forbidden_in_engine("#  include \"gardener/kube_client.hpp\""));
    EXPECT_TRUE(forbidden_in_engine("#include <curl/curl.h>"));
    EXPECT_TRUE(forbidden_in_engine("#include \"app/engine_assembly.hpp\""));
    EXPECT_FALSE(forbidden_in_engine("#include <nlohmann/json.hpp>"));
    EXPECT_FALSE(forbidden_in_engine("#include \"engine/model.hpp\""));
}

TEST(Architecture, AdapterErrorCatchesAreRecognized) {
    EXPECT_TRUE(catches_adapter_error("    } catch (const gardener::KubeError& e) {"));
    EXPECT_TRUE(
        catches_adapter_error("if (auto* e = dynamic_cast<const kprov::director::X*>(&e))"));
    EXPECT_FALSE(catches_adapter_error("    } catch (const RemoteError& e) {"));
    EXPECT_FALSE(catches_adapter_error("    gardener::GardenerClient client(config);"));
}

TEST(Architecture, EngineIncludesNoAdapterOrInfrastructureHeader) {
    EXPECT_GT(expect_no_line({"/src/engine"}, forbidden_in_engine), 5);
}

// The fronts (cli/, api/) handle failures by the engine's error types only: an adapter's error
// that a front needs to tell apart carries what it needs (RemoteError's http_status, reason and
// component), so that a rule about it cannot live in a front.
TEST(Architecture, FrontsCatchNoAdapterErrorType) {
    EXPECT_GT(expect_no_line({"/src/cli", "/src/api"}, catches_adapter_error), 10);
}

} // namespace

namespace {

// YAML is loaded in src/yaml/ only (issue 36): libyaml's header and yaml-cpp's loader appear
// nowhere else; yaml-cpp's emitter (-o yaml) may, without its loader.
bool loads_yaml_outside_src_yaml(const std::string& line) {
    static const std::regex loads(R"(#\s*include\s*<yaml\.h>|YAML::Load|yaml_parser_)");
    return std::regex_search(line, loads);
}

TEST(Architecture, YamlIsLoadedOnlyInSrcYaml) {
    EXPECT_TRUE(loads_yaml_outside_src_yaml("    root = YAML::Load(text);"));
    EXPECT_TRUE(loads_yaml_outside_src_yaml("#include <yaml.h>"));
    EXPECT_FALSE(loads_yaml_outside_src_yaml("#include <yaml-cpp/yaml.h>"));
    int files = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(KPROV_SOURCE_DIR) + "/src")) {
        const std::string name = entry.path().filename().string();
        if (entry.is_directory() && name != "yaml") {
            const std::string dir = "/src/" + name;
            files += expect_no_line({dir.c_str()}, loads_yaml_outside_src_yaml);
        }
    }
    EXPECT_GT(files, 100);
}

} // namespace

namespace {

// No component logs through spdlog's process-wide default logger, and nothing installs one
// (issue 36): each is given the logger it writes to (net/logger.hpp).
bool logs_through_a_global(const std::string& line) {
    static const char* const forbidden[] = {
        "spdlog::set_default_logger",
        "spdlog::default_logger",
        "spdlog::trace(",
        "spdlog::debug(",
        "spdlog::info(",
        "spdlog::warn(",
        "spdlog::error(",
        "spdlog::critical(",
        "spdlog::log(",
    };
    for (const char* call : forbidden)
        if (line.find(call) != std::string::npos)
            return true;
    return false;
}

TEST(Architecture, GlobalLoggerCallsAreRecognized) {
    EXPECT_TRUE(logs_through_a_global("    spdlog::set_default_logger(m_logger);"));
    EXPECT_TRUE(logs_through_a_global("    const auto& log = spdlog::default_logger();"));
    EXPECT_TRUE(logs_through_a_global("        spdlog::warn(\"x {}\", e.what());"));
    EXPECT_TRUE(logs_through_a_global("    spdlog::log(spdlog::level::info, \"up\");"));
    EXPECT_TRUE(logs_through_a_global("spdlog::info(\"stopped\");"));
    EXPECT_TRUE(logs_through_a_global("spdlog::debug(\"{} passes\", n);"));
    EXPECT_TRUE(logs_through_a_global("spdlog::error(\"e\");"));
    EXPECT_FALSE(logs_through_a_global("    m_log->warn(\"x {}\", e.what());"));
    EXPECT_FALSE(logs_through_a_global("    log.set_level(spdlog::level::debug);"));
    EXPECT_FALSE(logs_through_a_global("std::shared_ptr<spdlog::logger> log;"));
}

TEST(Architecture, NothingInSrcLogsThroughSpdlogsDefaultLogger) {
    EXPECT_GT(expect_no_line({"/src"}, logs_through_a_global), 300);
}

} // namespace
