# Finds Debian's libxgboost-dev through pkg-config (its CMake package also wants the xgboost
# command-line package, so it is not used). Defines WeftXGBoost_FOUND and the imported target
# Weft::XGBoost when the library and xgboost/c_api.h are there.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(WEFT_XGB QUIET IMPORTED_TARGET GLOBAL xgboost)
endif()
find_path(WeftXGBoost_INCLUDE_DIR xgboost/c_api.h)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(WeftXGBoost REQUIRED_VARS WEFT_XGB_FOUND WeftXGBoost_INCLUDE_DIR)
if(WeftXGBoost_FOUND AND NOT TARGET Weft::XGBoost)
  add_library(Weft::XGBoost INTERFACE IMPORTED GLOBAL)
  target_link_libraries(Weft::XGBoost INTERFACE PkgConfig::WEFT_XGB)
endif()
