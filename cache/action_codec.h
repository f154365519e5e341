// The table's encoding of Actions: a tag and a version of our own per alternative, then its fields, so that
// reordering or extending the Action variant never changes what an old table means; and the vocabulary schema
// (the order of every enum the encodings rely on), whose digest a table records to detect a changed vocabulary.
#pragma once

#include <cstdint>
#include <string>

#include <cereal/archives/binary.hpp>

#include "spec/byte_writer.h"

#include "sched/action.h"

namespace kriek {

/// Writes `action` as (tag u16, version u8, fields) in cereal's binary encoding (ByteWriter), which
/// load_action reads.
void save_action(ByteWriter& ar, const Action& action);
/// Reads what save_action wrote; throws UserError naming an unknown tag or version.
Action load_action(cereal::BinaryInputArchive& ar);

/// The names, in encoding order, of the op kinds, dtypes, levels, layout kinds, kernels and action tags with
/// their versions, e.g. "ops=matmul,conv,...;levels=GL,L2,...". Any change makes old tables unreadable.
const std::string& vocabulary_schema();
/// stable_hash of vocabulary_schema().
std::uint64_t vocabulary_fingerprint();

}  // namespace kriek
