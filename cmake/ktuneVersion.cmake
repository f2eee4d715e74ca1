# ktune's version, written once: the project, the package's version file and `ktune --version`.
set(KTUNE_VERSION 0.1.0)
