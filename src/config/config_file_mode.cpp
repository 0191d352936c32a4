// Whether a config file that holds a secret can be read by other users of the machine.

#include "config/settings.hpp"
#include "engine/util/text.hpp"

#include <cstdio>
#include <sys/stat.h>

namespace kprov::config {

std::optional<std::string> shared_secret_file_warning(const std::string& path,
                                                      const ConfigFileValues& file) {
    std::string keys;
    for (const auto& [key, text] : file.values) {
        const SettingSpec* spec = find_setting(key);
        const bool secret =
            spec && (spec->secret || (spec->kind == Kind::StoreUrl && redact_url(text) != text));
        if (secret && !text.empty())
            keys += (keys.empty() ? "" : ", ") + key;
    }
    struct stat st {};
    if (keys.empty() || ::stat(path.c_str(), &st) != 0 || (st.st_mode & (S_IRGRP | S_IROTH)) == 0)
        return std::nullopt;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return "config file " + path + " holds a secret (" + keys +
           ") and is readable by group or others (mode " + mode + "); run: chmod 600 " + path;
}

} // namespace kprov::config
