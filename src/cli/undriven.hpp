#pragma once
// What the read commands do about an operation in progress that no process drives (no live
// lease): `status` advances it by one bounded pass here, as `kprov wait` would, so that it
// never shows a stage Gardener has gone past; `list` says how many such operations it shows
// and what drives them. Either way the user learns what the store knows.

#include "cli/context.hpp"
#include "engine/model.hpp"

#include <optional>
#include <vector>

namespace kprov::cli {

/// `last` (the runtime's last operation) as status should show it: when it is in progress and
/// undriven (engine::is_undriven), one pass of it runs here, after Gardener answered the
/// one-shot check, and the operation as that pass left it is returned. When Gardener cannot be
/// used or the pass fails, `last` comes back as it was and stderr says so, with the command
/// that drives it (not with -q). Never throws.
std::optional<engine::Operation> advance_undriven(Context& ctx,
                                                  const std::optional<engine::Operation>& last);

/// One note on stderr (not with -q) when any of `ops` (the last operations `list` shows) is
/// undriven: how many, that they are shown as last recorded, and what drives them.
void note_undriven(Context& ctx, const std::vector<const engine::Operation*>& ops);

} // namespace kprov::cli
