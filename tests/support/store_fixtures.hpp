#pragma once
// Runtimes, operations and comparisons shared by the store suites (contract, SQLite, PostgreSQL,
// takeover), so each suite states only what it tests.

#include "engine/model.hpp"

#include <string>

namespace kprov::testing {

/// 2026-11-30 10:00:00.123456 UTC: microseconds on purpose, so precision loss shows.
extern const Timestamp k_t0;

/// A GCP runtime with only the required fields set.
engine::Runtime small_runtime(const std::string& id = engine::new_uuid(), Timestamp created = k_t0);

/// An in-progress operation of `type` at `stage`, due at `start`.
engine::Operation new_operation(const std::string& runtime_id,
                                engine::OperationType type = engine::OperationType::Provision,
                                Timestamp start = k_t0, const std::string& stage = "CreatingShoot");

/// Compares field by field (so a failure names the field), then as a whole. Labels compare as
/// JSON: a database may normalize their text. The Kyma config as expect_same_kyma.
void expect_same_runtime(engine::Runtime got, const engine::Runtime& want);

/// Compares two Kyma configs (or their absence) field by field, component by component in
/// order, and then as a whole.
void expect_same_kyma(const std::optional<engine::KymaConfig>& got,
                      const std::optional<engine::KymaConfig>& want);

} // namespace kprov::testing
