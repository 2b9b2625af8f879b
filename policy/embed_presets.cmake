# Turns presets.yaml into a C++ translation unit so the binary needs no data files.
file(READ ${IN} content)
set(delim "HALO_PRESETS_")
file(WRITE ${OUT} "// Generated from policy/presets.yaml; do not edit.\n"
  "namespace halo::policy { extern const char* const kPresetsYaml = R\"${delim}(${content})${delim}\"; }\n")
