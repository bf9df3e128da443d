# Placeholder: filled in by the tooling step (pkg-config, CMake package, shoalcc).
