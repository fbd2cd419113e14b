// Python bindings of the native core (pybind11): `mathy_envs._native`.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "expression.hpp"

namespace py = pybind11;
using mathy_native::Tree;

namespace {

constexpr int CORE_RULES = 7;

struct Parsed {
    Tree tree;
    std::vector<int> order;  // in-order node indices: action index -> node
};

std::optional<Parsed> parse(const py::handle& text) {
    // Only a str, and only one with a UTF-8 form (no lone surrogates).
    if (!PyUnicode_Check(text.ptr())) return std::nullopt;
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
    if (utf8 == nullptr) {
        PyErr_Clear();
        return std::nullopt;
    }
    Parsed parsed;
    if (!parsed.tree.parse(std::string(utf8, static_cast<size_t>(size)))) return std::nullopt;
    parsed.order = parsed.tree.in_order();
    return parsed;
}

}  // namespace

PYBIND11_MODULE(_native, module) {
    module.doc() =
        "The native core: mathy_core's parser, printer and core-rule checks in C++.";
    module.attr("CORE_RULES") = CORE_RULES;
    module.attr("MAX_NODES") = mathy_native::MAX_NODES;

    py::class_<Parsed>(module, "Expression")
        .def_static("parse", &parse, py::arg("text"),
                    "The tree of `text`, or None where mathy_core would raise or the "
                    "text is outside what the native core reproduces (anything but a "
                    "str with a UTF-8 form included).")
        .def("text", [](const Parsed& self) { return self.tree.text(); },
             "mathy_core's printed text of the tree.")
        .def("__len__", [](const Parsed& self) { return self.order.size(); })
        .def("nodes",
             [](const Parsed& self) {
                 // Creation order (mathy_core's order too): kind, left, right, parent,
                 // and the constant's value (int or float) or the variable's name.
                 py::list out(self.tree.nodes.size());
                 size_t k = 0;
                 for (const auto& n : self.tree.nodes) {
                     py::object payload = py::none();
                     if (n.kind == mathy_native::CONSTANT) {
                         if (n.is_float) payload = py::float_(n.float_value);
                         else payload = py::int_(n.int_value);
                     } else if (n.kind == mathy_native::VARIABLE) {
                         payload = py::str(std::string(1, n.name));
                     }
                     out[k++] = py::make_tuple(static_cast<int>(n.kind), n.left, n.right, n.parent, payload);
                 }
                 return py::make_tuple(self.tree.root, out);
             },
             "The nodes in creation order, `(root, [(kind, left, right, parent, "
             "value or name)])`, indices into the list (-1 for none).")
        .def("walk",
             [](const Parsed& self) {
                 const Tree::Walk w = self.tree.walk();
                 return py::make_tuple(w.order, w.levels, w.preorder, w.parent_pre,
                                       w.type_ids_pre, w.values_pre, w.type_ids, w.values,
                                       w.exact);
             },
             "mathy_envs' `walk_tree` of the tree, with the creation-order index of "
             "each in-order node in place of the nodes: `(order, levels, preorder, "
             "parent_pre, type_ids_pre, values_pre, type_ids, values, exact)`.")
        .def("apply",
             [](const Parsed& self, int rule, int column) -> std::optional<std::string> {
                 if (rule < 0 || rule >= CORE_RULES || column < 0 ||
                     static_cast<size_t>(column) >= self.order.size())
                     return std::nullopt;
                 const int node = self.order[column];
                 if (!self.tree.can_apply(rule, node, false) &&
                     !self.tree.can_apply(rule, node, true))
                     return std::nullopt;
                 Tree rewritten = self.tree;  // the rules change the tree they apply to
                 std::string text;
                 if (!rewritten.apply(rule, node, text)) return std::nullopt;
                 return text;
             },
             py::arg("rule"), py::arg("node"),
             "The text of the whole expression after core rule `rule` (action order) "
             "is applied at in-order node `node` by mathy_core's `apply_to`, or None "
             "where the rule does not apply there or the native core leaves the "
             "arithmetic to mathy_core.")
        .def("type_ids",
             [](const Parsed& self) {
                 std::vector<int> ids;
                 ids.reserve(self.order.size());
                 for (int node : self.order) ids.push_back(self.tree.type_id(node));
                 return ids;
             },
             "mathy_core's type id of each node, in action (in-order) order.")
        .def("mask",
             [](const Parsed& self, bool preferred_commute) {
                 const size_t count = self.order.size();
                 std::string cells(CORE_RULES * count, '\0');
                 for (int rule = 0; rule < CORE_RULES; ++rule)
                     for (size_t column = 0; column < count; ++column)
                         if (self.tree.can_apply(rule, self.order[column], preferred_commute))
                             cells[rule * count + column] = 1;
                 return py::bytes(cells);
             },
             py::arg("preferred_commute") = false,
             "`can_apply_to` of the seven core rules at every node: row-major "
             "(rule, node) bytes of 0 and 1.");
}
