// load(): layering the sources over the table of settings, resolving the store URL, and
// collecting every problem into one ConfigError so a user fixes them all in one go.

#include "config/settings.hpp"
#include "engine/error.hpp"
#include "engine/util/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <stdexcept>
#include <system_error>

namespace kprov::config {
namespace {

using Getenv = std::function<std::optional<std::string>(const std::string&)>;

/// A value some source gave for a setting.
struct Given {
    std::string text;
    Origin origin = Origin::Default;
    std::string source; ///< for `kprov config`: "APP_ADDRESS", "file /x.yaml", "flag --store"
    std::string where;  ///< for messages: "APP_ADDRESS", "config file /x.yaml key address", ...
};

// An empty value counts as not given: `APP_DATABASE_SECRET_KEY=` in a compose file or an empty
// Helm value means "unset", and refusing it would break the original's deployments.
std::optional<std::string> lookup(const Getenv& getenv, const std::string& name) {
    auto value = getenv(name);
    if (value && value->empty())
        value.reset();
    return value;
}

// The XDG base directory spec says relative values are to be ignored.
std::optional<std::filesystem::path> xdg_dir(const Getenv& getenv, const char* variable,
                                             const char* fallback_under_home) {
    if (auto dir = lookup(getenv, variable); dir && std::filesystem::path(*dir).is_absolute())
        return std::filesystem::path(*dir);
    if (auto home = lookup(getenv, "HOME"); home && std::filesystem::path(*home).is_absolute())
        return std::filesystem::path(*home) / fallback_under_home;
    return std::nullopt;
}

std::string quote(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7F) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02X", c);
            out += escaped;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

std::string uppercase(std::string_view text) {
    std::string out(text);
    for (auto& c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

// The known key a user most likely meant: one whose variable they typed ("APP_DATABASE_HOST"),
// one they left the group off ("secret_key"), else the nearest spelling.
std::optional<std::string_view> closest_key(std::string_view unknown) {
    const auto& specs = setting_specs();
    const auto upper = uppercase(unknown);
    for (const auto& spec : specs) {
        if (spec.env == upper ||
            std::find(spec.aliases.begin(), spec.aliases.end(), upper) != spec.aliases.end())
            return spec.key;
    }
    for (const auto& spec : specs) {
        const auto dot = spec.key.rfind('.');
        if (dot != std::string_view::npos && spec.key.substr(dot + 1) == unknown)
            return spec.key;
    }
    std::vector<std::string> keys;
    for (const auto& spec : specs)
        keys.emplace_back(spec.key);
    if (const auto match = closest_match(unknown, keys))
        return find_setting(*match)->key;
    return std::nullopt;
}

class Loader {
public:
    explicit Loader(const Sources& sources)
        : m_sources(sources)
        , m_getenv(sources.getenv) {
        if (!m_getenv) {
            m_getenv = [](const std::string& name) -> std::optional<std::string> {
                const char* value = std::getenv(name.c_str());
                return value ? std::optional<std::string>(value) : std::nullopt;
            };
        }
    }

    Effective run() {
        read_file();
        check_flag_keys();
        for (const auto& spec : setting_specs())
            load_setting(spec);
        m_effective.settings.database.host_set = entry("database.host").origin != Origin::Default;
        resolve_store_url();
        check_tls_pair();
        warn_of_passwords_in_flags();
        redact_entries();
        if (!m_problems.empty()) {
            std::string message;
            for (const auto& problem : m_problems)
                message += (message.empty() ? "" : "\n") + problem;
            throw ConfigError(message);
        }
        return std::move(m_effective);
    }

private:
    // A flag's value is in the process's command line, which every user of the machine can
    // read (ps, /proc/<pid>/cmdline).
    void warn_of_passwords_in_flags() {
        const auto flag = m_sources.flags.find("store");
        if (flag != m_sources.flags.end() && redact_url(flag->second) != flag->second)
            m_effective.warnings.push_back(
                "the --store URL carries a password, which other users of this machine can read "
                "in its command line (ps); give the URL in KPROV_STORE or the config file, or the "
                "password in APP_DATABASE_PASSWORD");
    }

    void read_file() {
        std::optional<std::string> path = m_sources.config_file;
        if (!path) {
            const auto dir = xdg_dir(m_getenv, "XDG_CONFIG_HOME", ".config");
            std::error_code ec; // an unreadable home is the same as no default file
            if (!dir || !std::filesystem::exists(*dir / "kprov" / "config.yaml", ec))
                return;
            path = (*dir / "kprov" / "config.yaml").string();
        }
        m_effective.config_file = path;
        ConfigFileValues file;
        try {
            file = read_config_file(*path);
        } catch (const ConfigError& e) {
            m_problems.emplace_back(e.what());
            return;
        }
        m_problems.insert(m_problems.end(), file.problems.begin(), file.problems.end());
        if (auto warning = shared_secret_file_warning(*path, file))
            m_effective.warnings.push_back(std::move(*warning));
        for (auto& [key, text] : file.values) {
            const std::string where = "config file " + *path + " key " + key;
            if (!find_setting(key)) {
                const auto suggestion = closest_key(key);
                m_problems.push_back(where + " is not a known setting (" +
                                     (suggestion ? "did you mean " + std::string(*suggestion) + "?"
                                                 : std::string("`kprov config` lists them")) +
                                     ")");
                continue;
            }
            m_file_values[key] = Given{text, Origin::File, "file " + *path, where};
        }
    }

    // Flags come from the CLI's own code, so an unknown key is kprov's bug; still reported,
    // not crashed on, so the user sees every other problem too.
    void check_flag_keys() {
        for (const auto& [key, value] : m_sources.flags)
            if (!find_setting(key))
                m_problems.push_back("flag for unknown setting " + key + "=" + quote(value));
    }

    std::optional<Given> winner(const SettingSpec& spec) const {
        if (auto flag = m_sources.flags.find(std::string(spec.key));
            flag != m_sources.flags.end() && !flag->second.empty()) {
            const auto name = "flag " + flag_name(spec);
            return Given{flag->second, Origin::Flag, name, name};
        }
        std::vector<std::string_view> names{spec.env};
        names.insert(names.end(), spec.aliases.begin(), spec.aliases.end());
        for (const auto name : names) {
            if (auto value = lookup(m_getenv, std::string(name)))
                return Given{*value, Origin::Environment, std::string(name), std::string(name)};
        }
        if (auto file = m_file_values.find(std::string(spec.key));
            file != m_file_values.end() && !file->second.text.empty())
            return file->second;
        return std::nullopt;
    }

    void load_setting(const SettingSpec& spec) {
        auto& settings = m_effective.settings;
        if (auto bad_default = apply_setting(spec, spec.default_value, settings))
            throw std::logic_error("default of setting " + std::string(spec.key) + " " +
                                   *bad_default);
        Entry e{std::string(spec.key), std::string(spec.env), "", Origin::Default, "", spec.secret};
        if (auto given = winner(spec)) {
            if (auto complaint = apply_setting(spec, given->text, settings)) {
                // A secret's value never appears, not even when it is wrong.
                const auto value = spec.secret ? std::string()
                                   : spec.kind == Kind::StoreUrl
                                       ? "=" + quote(redact_url(given->text))
                                       : "=" + quote(given->text);
                m_problems.push_back(given->where + value + " " + *complaint);
            }
            e.origin = given->origin;
            e.source = given->source;
        }
        e.value = format_setting(spec, settings);
        m_effective.entries.push_back(std::move(e));
    }

    Entry& entry(std::string_view key) {
        for (auto& e : m_effective.entries)
            if (e.key == key)
                return e;
        throw std::logic_error("no setting " + std::string(key));
    }

    // The "store" setting wins at any level; then the original's APP_DATABASE_* (so a
    // provisioner deployment keeps its database without new variables); then local SQLite.
    void resolve_store_url() {
        auto& store = entry("store");
        auto& settings = m_effective.settings;
        if (store.origin != Origin::Default)
            return;
        if (settings.database.host_set) {
            const auto& host = entry("database.host");
            settings.store_url = postgres_url(settings.database);
            store.origin = host.origin;
            store.source = host.source;
        } else if (auto dir = xdg_dir(m_getenv, "XDG_STATE_HOME", ".local/state")) {
            settings.store_url = "sqlite://" + (*dir / "kprov" / "kprov.db").string();
        } else {
            m_problems.emplace_back("no store is configured and neither XDG_STATE_HOME nor HOME "
                                    "is an absolute path to put the local one under (expected "
                                    "KPROV_STORE or --store, e.g. sqlite:///var/lib/kprov.db)");
        }
        store.value = settings.store_url;
    }

    void check_tls_pair() {
        const auto& cert = entry("tls.cert_file");
        const auto& key = entry("tls.key_file");
        if (cert.value.empty() == key.value.empty())
            return;
        const auto& given = cert.value.empty() ? key : cert;
        const auto& missing = cert.value.empty() ? cert : key;
        m_problems.push_back(given.key + " (" + given.source + ") is set but " + missing.key +
                             " (" + missing.env + ") is not (expected both or neither)");
    }

    void redact_entries() {
        for (auto& e : m_effective.entries) {
            if (e.secret && !e.value.empty())
                e.value = "***";
            else if (e.key == "store")
                e.value = redact_url(e.value);
        }
    }

    const Sources& m_sources;
    Getenv m_getenv;
    std::map<std::string, Given> m_file_values;
    std::vector<std::string> m_problems;
    Effective m_effective;
};

} // namespace

std::string_view to_string(Origin origin) {
    switch (origin) {
    case Origin::Default:
        return "default";
    case Origin::File:
        return "file";
    case Origin::Environment:
        return "environment";
    case Origin::Flag:
        return "flag";
    }
    return "unknown";
}

Effective load(const Sources& sources) {
    return Loader(sources).run();
}

} // namespace kprov::config
