// weft::UserError raised into Python as weft.Error (a ValueError subclass, the same message the
// CLI prints) and weft::InternalError as RuntimeError, so that no input from Python takes the
// interpreter down.
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"

namespace weft::py_bind {

void bind_errors(py::module_& m) {
  static py::exception<UserError> error(m, "Error", PyExc_ValueError);
  error.doc() = "A problem with the input (shape, dtype, schedule, option); the message says "
                "what and where, as the weft CLI's does.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      error(e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError,
                      (std::string("weft internal error (a bug, please report it): ") + e.what())
                          .c_str());
    }
  });
}

}  // namespace weft::py_bind
