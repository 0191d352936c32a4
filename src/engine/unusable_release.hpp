#pragma once
// A Kyma release kprov cannot use, whatever it retries (src/engine/kyma_stages.cpp fails the
// operation on it; the installation-cr backend throws it).

#include "engine/error.hpp"

namespace kprov::engine {

/// A release whose YAML cannot be read (not YAML, or beyond a bound of yaml::k_foreign_bounds,
/// named), or whose objects use an API version the runtime cluster does not serve: no retry can
/// change it, so the operation fails.
class UnusableRelease : public Error {
public:
    using Error::Error;
};

} // namespace kprov::engine
