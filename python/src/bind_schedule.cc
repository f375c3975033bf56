// weft.te's schedules: create_schedule, s[T] (a Stage) with the primitives of te::Stage
// (split, tile, reorder, fuse, vectorize, unroll, parallel, pragma, bind to GPU indices or to
// a virtual thread, compute_at, tensorize, double_buffer) and those of te::Schedule
// (cache_read, cache_write, set_scope, compute_inline). Each call goes straight to the C++
// schedule, whose UserErrors name the stage and the loop.
#include <pybind11/stl.h>

#include "compiler/te/intrinsics.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "python/src/bindings.h"

namespace weft::py_bind {

namespace {

// A stage of a schedule, looked up by its tensor on each use.
struct PyStage {
  std::shared_ptr<te::Schedule> s;
  te::Tensor t;
  te::Stage& get() const { return (*s)[t]; }
};

te::IterVar leaf(py::handle h, const char* what) {
  if (!py::isinstance<PyIterVar>(h))
    throw UserError(std::string(what) + ": expected an axis (IterVar), got " +
                    std::string(py::str(py::type::of(h).attr("__name__"))));
  return h.cast<const PyIterVar&>().iv;
}

ir::ThreadAxis thread_axis(const std::string& name) {
  for (ir::ThreadAxis a : {ir::ThreadAxis::kBlockX, ir::ThreadAxis::kBlockY, ir::ThreadAxis::kBlockZ,
                           ir::ThreadAxis::kThreadX, ir::ThreadAxis::kThreadY,
                           ir::ThreadAxis::kThreadZ}) {
    if (name == ir::thread_axis_name(a)) return a;
  }
  throw UserError("bind: unknown thread axis '" + name +
                  "' (blockIdx.x/y/z, threadIdx.x/y/z, or vthread)");
}

std::vector<te::Tensor> tensors(py::handle h, const char* what) {
  std::vector<te::Tensor> out;
  if (py::isinstance<PyTensor>(h)) return {h.cast<const PyTensor&>().t};
  for (py::handle x : h.cast<py::sequence>()) {
    if (!py::isinstance<PyTensor>(x)) throw UserError(std::string(what) + ": expected tensors");
    out.push_back(x.cast<const PyTensor&>().t);
  }
  return out;
}

}  // namespace

void bind_schedule(py::module_& root) {
  py::module_ m = root.attr("te").cast<py::module_>();

  py::class_<te::GemmIntrinsic>(m, "GemmIntrinsic",
                                "A configuration's GEMM block (te.gemm_intrinsic(config)).")
      .def_readonly("batch", &te::GemmIntrinsic::batch)
      .def_readonly("block_in", &te::GemmIntrinsic::block_in)
      .def_readonly("block_out", &te::GemmIntrinsic::block_out)
      .def("__repr__", [](const te::GemmIntrinsic& g) {
        return "GemmIntrinsic(" + std::to_string(g.batch) + "x" + std::to_string(g.block_in) +
               "x" + std::to_string(g.block_out) + ")";
      });
  m.def("gemm_intrinsic",
        [](const std::string& config) { return te::gemm_intrinsic(isa::layout_for(config)); },
        py::arg("config") = "gemm8x8", "The GEMM intrinsic of a hardware configuration.");

  py::class_<PyStage>(m, "Stage", "The schedule of one computed tensor (s[T]).")
      .def("split",
           [](const PyStage& st, py::handle axis, std::optional<int64_t> factor,
              std::optional<int64_t> nparts) {
             const te::IterVar a = leaf(axis, "split");
             if (factor.has_value() == nparts.has_value())
               throw UserError("split of '" + a->name() + "': give one of factor= or nparts=");
             if (nparts && *nparts <= 0)
               throw UserError("split of '" + a->name() + "': nparts " +
                               std::to_string(*nparts) + " is not positive");
             // nparts outer iterations: the inner extent that gives that many (rounded up).
             const int64_t f = factor ? *factor : (a->extent + *nparts - 1) / *nparts;
             auto [outer, inner] = st.get().split(a, f);
             return py::make_tuple(PyIterVar{outer}, PyIterVar{inner});
           },
           py::arg("axis"), py::arg("factor") = py::none(), py::arg("nparts") = py::none(),
           "Splits axis into (outer, inner); inner has extent factor.")
      .def("tile",
           [](const PyStage& st, py::handle x, py::handle y, int64_t fx, int64_t fy) {
             auto v = st.get().tile(leaf(x, "tile"), leaf(y, "tile"), fx, fy);
             return py::make_tuple(PyIterVar{v[0]}, PyIterVar{v[1]}, PyIterVar{v[2]},
                                   PyIterVar{v[3]});
           },
           py::arg("x_parent"), py::arg("y_parent"), py::arg("x_factor"), py::arg("y_factor"),
           "Splits two axes; returns (x.outer, y.outer, x.inner, y.inner) in that loop order.")
      .def("reorder",
           [](const PyStage& st, py::args axes) {
             std::vector<te::IterVar> order;
             for (py::handle h : axes) order.push_back(leaf(h, "reorder"));
             st.get().reorder(order);
           })
      .def("fuse",
           [](const PyStage& st, py::args axes) {
             if (axes.size() < 2) throw UserError("fuse: give at least two adjacent axes");
             te::IterVar f = leaf(axes[0], "fuse");
             for (size_t i = 1; i < axes.size(); ++i) f = st.get().fuse(f, leaf(axes[i], "fuse"));
             return PyIterVar{f};
           },
           "Fuses adjacent axes (outermost first) into one loop.")
      .def("vectorize",
           [](const PyStage& st, py::handle a) {
             st.get().set_kind(leaf(a, "vectorize"), ir::ForKind::kVectorized);
           })
      .def("unroll",
           [](const PyStage& st, py::handle a) {
             st.get().set_kind(leaf(a, "unroll"), ir::ForKind::kUnrolled);
           })
      .def("parallel",
           [](const PyStage& st, py::handle a) {
             st.get().set_kind(leaf(a, "parallel"), ir::ForKind::kParallel);
           })
      .def("virtual_thread",
           [](const PyStage& st, py::handle a) {
             st.get().set_kind(leaf(a, "virtual_thread"), ir::ForKind::kVirtualThread);
           },
           "Deals the loop's iterations to virtual threads (the same as bind(a, 'vthread')).")
      .def("pragma",
           [](const PyStage& st, py::handle a, const std::string& key) {
             st.get().pragma(leaf(a, "pragma"), key);
           },
           py::arg("axis"), py::arg("key"), "Attaches a pragma (e.g. 'dma_copy', 'alu').")
      .def("bind",
           [](const PyStage& st, py::handle a, const std::string& axis) {
             const te::IterVar l = leaf(a, "bind");
             if (axis == "vthread" || axis == "cthread")
               return st.get().set_kind(l, ir::ForKind::kVirtualThread);
             st.get().bind(l, thread_axis(axis));
           },
           py::arg("axis"), py::arg("thread_axis"),
           "Binds a loop to blockIdx.x/y/z or threadIdx.x/y/z, or to 'vthread' (virtual threads).")
      .def("compute_at",
           [](const PyStage& st, const PyStage& consumer, py::handle a) {
             if (consumer.s != st.s)
               throw UserError("compute_at: the consumer stage is of another schedule");
             st.get().compute_at(consumer.get(), leaf(a, "compute_at"));
           },
           py::arg("parent"), py::arg("axis"))
      .def("tensorize",
           [](const PyStage& st, py::handle a, const te::GemmIntrinsic& g) {
             st.get().tensorize(leaf(a, "tensorize"), g);
           },
           py::arg("axis"), py::arg("intrinsic"))
      .def("double_buffer", [](const PyStage& st) { st.get().double_buffer(); })
      .def("compute_inline", [](const PyStage& st) { st.s->compute_inline(st.t); })
      .def("set_scope",
           [](const PyStage& st, const std::string& scope) {
             st.s->set_scope(st.t, parse_scope(scope));
           })
      .def_property_readonly("leaf_iter_vars",
                             [](const PyStage& st) {
                               py::list out;
                               for (const te::IterVar& v : st.get().leaves()) out.append(PyIterVar{v});
                               return out;
                             })
      .def_property_readonly("op", [](const PyStage& st) { return PyTensor{st.t}; })
      .def("__repr__", [](const PyStage& st) { return "Stage(" + st.t->name + ")"; });

  py::class_<PySchedule>(m, "Schedule", "A schedule over output tensors (te.create_schedule).")
      .def("__getitem__",
           [](const PySchedule& s, const PyTensor& t) {
             (*s.s)[t.t];  // UserError now for a placeholder or a tensor not in the schedule
             return PyStage{s.s, t.t};
           })
      .def("cache_read",
           [](const PySchedule& s, const PyTensor& t, const std::string& scope, py::handle readers) {
             return PyTensor{s.s->cache_read(t.t, parse_scope(scope), tensors(readers, "cache_read"))};
           },
           py::arg("tensor"), py::arg("scope"), py::arg("readers"))
      .def("cache_write",
           [](const PySchedule& s, const PyTensor& t, const std::string& scope) {
             return PyTensor{s.s->cache_write(t.t, parse_scope(scope))};
           },
           py::arg("tensor"), py::arg("scope"))
      .def("set_scope",
           [](const PySchedule& s, const PyTensor& t, const std::string& scope) {
             s.s->set_scope(t.t, parse_scope(scope));
           })
      .def("compute_inline", [](const PySchedule& s, const PyTensor& t) { s.s->compute_inline(t.t); })
      .def_property_readonly("outputs", [](const PySchedule& s) {
        py::list out;
        for (const te::Tensor& t : s.s->outputs()) out.append(PyTensor{t});
        return out;
      });

  m.def("create_schedule",
        [](py::handle outputs) {
          std::vector<te::Tensor> outs = tensors(outputs, "create_schedule");
          for (const te::Tensor& t : outs) {
            if (t->is_placeholder)
              throw UserError("create_schedule: '" + t->name + "' is a placeholder, not a compute");
          }
          return PySchedule{std::make_shared<te::Schedule>(std::move(outs))};
        },
        py::arg("outputs"), "A schedule of the computed tensor(s) and everything they read.");
}

}  // namespace weft::py_bind
