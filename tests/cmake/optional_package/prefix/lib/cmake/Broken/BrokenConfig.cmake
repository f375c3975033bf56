# A package config that fails hard, as oneDNN's does without the OpenCL headers.
find_package(WeftNoSuchDependency REQUIRED)
