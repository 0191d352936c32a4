#include "k8s_validation.hpp"

#include "object_store.hpp"

#include <algorithm>
#include <cctype>

namespace kprov::sim {

namespace {

bool alnum(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// The "qualified name" part of a label key and the whole of a label value share one grammar.
bool is_label_token(const std::string& s) {
    if (s.empty())
        return true;
    if (s.size() > 63 || !alnum(s.front()) || !alnum(s.back()))
        return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

const char* k_label_value_help =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

} // namespace

std::vector<Cause> label_causes(const Json& obj) {
    std::vector<Cause> causes;
    const Json& md = obj.contains("metadata") ? obj["metadata"] : Json::object();
    if (!md.is_object() || !md.contains("labels") || md["labels"].is_null())
        return causes;
    if (!md["labels"].is_object()) {
        causes.push_back({"FieldValueInvalid", "Invalid value: labels must be an object of strings",
                          "metadata.labels"});
        return causes;
    }
    for (const auto& [key, value] : md["labels"].items()) {
        std::string name = key;
        bool prefix_ok = true;
        if (auto slash = key.find('/'); slash != std::string::npos) {
            prefix_ok = is_dns_subdomain(key.substr(0, slash));
            name = key.substr(slash + 1);
        }
        if (!prefix_ok || name.empty() || !is_label_token(name))
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: \"" + key +
                                  "\": name part must consist of alphanumeric characters, '-', "
                                  "'_' or '.', and must start and end with an alphanumeric "
                                  "character, with an optional DNS subdomain prefix and '/'",
                              "metadata.labels"});
        if (!value.is_string()) {
            causes.push_back({"FieldValueInvalid", "Invalid value: label values must be strings",
                              "metadata.labels"});
            continue;
        }
        std::string v = value.get<std::string>();
        if (v.size() > 63)
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: \"" + v + "\": must be no more than 63 characters",
                              "metadata.labels"});
        else if (!is_label_token(v))
            causes.push_back({"FieldValueInvalid",
                              "Invalid value: \"" + v + "\": " + k_label_value_help,
                              "metadata.labels"});
    }
    return causes;
}

std::vector<Cause> data_key_causes(const Json& obj) {
    std::vector<Cause> causes;
    for (const char* field : {"data", "binaryData"}) {
        if (!obj.contains(field) || !obj[field].is_object())
            continue;
        for (const auto& [key, v] : obj[field].items()) {
            std::string path = std::string(field) + "[" + key + "]";
            bool chars_ok = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
                return alnum(c) || c == '-' || c == '_' || c == '.';
            });
            std::string why;
            if (!chars_ok)
                why = "a valid config key must consist of alphanumeric characters, '-', '_' or "
                      "'.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
                      "validation is '[-._a-zA-Z0-9]+')";
            else if (key.size() > 253)
                why = "must be no more than 253 characters";
            else if (key == "." || key == "..")
                why = "must not be '" + key + "'";
            else if (key.rfind("..", 0) == 0)
                why = "must not start with '..'";
            if (!why.empty())
                causes.push_back(
                    {"FieldValueInvalid", "Invalid value: \"" + key + "\": " + why, path});
        }
    }
    return causes;
}

} // namespace kprov::sim
