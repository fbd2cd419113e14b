// Python bindings of the native core (pybind11): `mathy_envs._native`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "checks.hpp"
#include "expression.hpp"
#include "flat.hpp"
#include "problems.hpp"

namespace py = pybind11;

namespace mathy_native {
void bind_batch(py::module_& module);  // batch.cpp
}
using mathy_native::Parsed;
using mathy_native::Tree;
using mathy_native::rewrite;

namespace {

constexpr int CORE_RULES = mathy_native::CORE_RULE_COUNT;

// Every entry point checks each buffer, size, index, count and container it is
// given before it reads or writes anything, and raises ValueError (naming itself
// and what was wrong) where one is out of range. A rule or node index out of
// range is a move that does not apply: `apply` and the calls that rewrite give
// None for it, as they do for any move that does not apply.

[[noreturn]] void refuse(const char* who, const std::string& what) {
    throw py::value_error(std::string(who) + ": " + what);
}

// admission.py's limit of the safe integer constants: |constant| <= it.
void check_safe_constant(const char* who, int64_t safe_constant) {
    if (safe_constant < 0)
        refuse(who, "safe_constant " + std::to_string(safe_constant) + " is negative");
}

// That the class of each node kind (`classes[kind]`) can make its nodes as
// object.__new__ makes them: a class whose `__new__` is object's (mathy_core's
// node classes and any plain Python class; not a built-in type with a layout
// of its own).
void check_classes(const py::tuple& classes) {
    if (classes.size() != static_cast<size_t>(mathy_native::SGN) + 1)
        refuse("build", "classes must hold one class per node kind (" +
                            std::to_string(mathy_native::SGN + 1) + "), got " +
                            std::to_string(classes.size()));
    for (const auto& kind : classes) {
        if (!PyType_Check(kind.ptr())) refuse("build", "classes must be classes");
        if (reinterpret_cast<PyTypeObject*>(kind.ptr())->tp_new != PyBaseObject_Type.tp_new)
            refuse("build", "classes must be classes whose instances object.__new__ makes "
                            "(mathy_core's node classes), got " +
                                py::str(kind).cast<std::string>());
    }
}

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
    if (!mathy_native::parse_text(std::string(utf8, static_cast<size_t>(size)), parsed))
        return std::nullopt;
    return parsed;
}


// The attribute names of mathy_core's nodes, interned once (static for the
// interpreter's life: the names never change, so sharing them is safe).
struct Names {
    PyObject *id, *left, *right, *parent, *rendering_change, *changed, *classes,
        *cloned_node, *cloned_target, *child, *child_on_left, *value, *identifier, *empty;
};

const Names& names() {
    static const Names made = [] {
        auto intern = [](const char* name) { return PyUnicode_InternFromString(name); };
        return Names{intern("id"), intern("left"), intern("right"), intern("parent"),
                     intern("_rendering_change"), intern("_changed"), intern("classes"),
                     intern("cloned_node"), intern("cloned_target"), intern("child"),
                     intern("child_on_left"), intern("value"), intern("identifier"),
                     intern("")};
    }();
    return made;
}

// Set attribute `name` of `node` to `value` (a plain instance attribute, as
// object's __setattr__ sets it); false on an error.
bool set(PyObject* node, PyObject* name, PyObject* value) {
    return PyObject_GenericSetAttr(node, name, value) == 0;
}

// `set`, stealing `value` (which may be null: an error).
bool set_new(PyObject* node, PyObject* name, PyObject* value) {
    if (value == nullptr) return false;
    const bool ok = set(node, name, value);
    Py_DECREF(value);
    return ok;
}

// mathy_core's nodes of the tree, as its parser makes them: a node of class
// `classes[kind]` with the attributes mathy_core's constructors set, in creation
// order, linked as the arena is (a node two nodes hold is one object, whose parent
// is the last node it was attached to).
//
// Why not through mathy_core's public API: its constructors (`AddExpression(left,
// right)`, `ConstantExpression(value)`, `VariableExpression(identifier)`,
// `NegateExpression(child)`), numbering the ids from its own counter, and
// `set_left`/`set_right` and `parent` for the links would make the same objects
// (the same attributes, set in the same order), but each constructor runs three
// or four Python frames (BinaryTreeNode.__init__, set_left, set_right,
// MathExpression.__init__...): measured on a 43-node text, about 410 us against
// this function's 64 us, and every read of a native parse's `tree` pays it. Nor
// is there a public setter for everything written here: `_rendering_change` and
// `_changed` are private, and only the constructor sets them to False
// (`set_changed` sets True). So the nodes are made by object.__new__ (what the
// constructors start with; `check_classes` makes sure it is theirs) and their
// attributes written here; tests/_engine/test_native_parse.py compares every
// node with mathy_core's parser's, attribute by attribute.
py::tuple build(const Parsed& self, const py::tuple& classes, long long counter) {
    const Names& key = names();
    const auto& arena = self.tree.nodes;
    const size_t count = arena.size();
    check_classes(classes);
    // The ids are "mn-<counter + 1>" to "mn-<counter + count>", as mathy_core's
    // counter (which starts at 0) numbers them.
    if (counter < 0 || counter > LLONG_MAX - static_cast<long long>(count))
        refuse("build", "counter " + std::to_string(counter) + " is out of range (0 to " +
                            std::to_string(LLONG_MAX - static_cast<long long>(count)) +
                            " for " + std::to_string(count) + " nodes)");
    py::list made(count);
    std::vector<PyObject*> objects(count, nullptr);
    py::tuple no_arguments(0);
    for (size_t i = 0; i < count; ++i) {
        const auto& n = arena[i];
        auto* type = reinterpret_cast<PyTypeObject*>(classes[n.kind].ptr());
        py::object node = py::reinterpret_steal<py::object>(
            PyBaseObject_Type.tp_new(type, no_arguments.ptr(), nullptr));
        if (!node) throw py::error_already_set();
        const std::string id = "mn-" + std::to_string(counter + static_cast<long long>(i) + 1);
        py::object name = py::reinterpret_steal<py::object>(
            PyUnicode_DecodeASCII(id.data(), static_cast<Py_ssize_t>(id.size()), nullptr));
        py::object classes_list = py::reinterpret_steal<py::object>(PyList_New(1));
        if (!name || !classes_list) throw py::error_already_set();
        PyList_SET_ITEM(classes_list.ptr(), 0, name.inc_ref().ptr());
        // Set one by one, in the order mathy_core's constructors set them: the
        // attributes then share their keys with every other node of the class.
        PyObject* o = node.ptr();
        PyObject* left = n.left >= 0 ? objects[n.left] : Py_None;
        PyObject* right = n.right >= 0 ? objects[n.right] : Py_None;
        bool ok = set(o, key.id, name.ptr()) && set(o, key.left, left) &&
                  set(o, key.right, right) && set(o, key.parent, Py_None) &&
                  set(o, key.rendering_change, Py_False) && set(o, key.changed, Py_False) &&
                  set(o, key.classes, classes_list.ptr()) &&
                  set(o, key.cloned_node, Py_None) && set(o, key.cloned_target, key.empty);
        if (ok && n.unary()) {
            ok = set(o, key.child, right) && set(o, key.child_on_left, Py_False);
        } else if (ok && n.kind == mathy_native::CONSTANT) {
            ok = set_new(o, key.value, n.is_float ? PyFloat_FromDouble(n.float_value)
                                                  : PyLong_FromLongLong(n.int_value));
        } else if (ok && n.kind == mathy_native::VARIABLE) {
            ok = set_new(o, key.identifier, PyUnicode_FromStringAndSize(&n.name, 1));
        }
        if (!ok) throw py::error_already_set();
        objects[i] = node.ptr();
        made[i] = std::move(node);  // the list keeps it alive
    }
    // A node's parent is the last node it was attached to, as in mathy_core.
    for (size_t i = 0; i < count; ++i) {
        const int parent = arena[i].parent;
        if (parent >= 0 && !set(objects[i], key.parent, objects[parent]))
            throw py::error_already_set();
    }
    return py::make_tuple(self.tree.root, made);
}
using Points = std::vector<std::vector<uint64_t>>;

// That each point holds 52 values and `roots` is at least 1.
void check_points(const char* who, const Points& points, int64_t roots) {
    if (roots < 1) refuse(who, "roots must be at least 1, got " + std::to_string(roots));
    for (const auto& point : points)
        if (point.size() != 52)
            refuse(who, "a point holds 52 variable values, got " + std::to_string(point.size()));
}

// values.py's values of the subtree under `top` at each point (`check_points`
// checked them); None where the native evaluator leaves the tree to values.py.
std::optional<std::vector<uint64_t>> point_values(const Tree& tree, int top,
                                                  const Points& points, int64_t roots) {
    std::vector<uint64_t> out;
    if (!mathy_native::values_at(tree, top, points, roots, out)) return std::nullopt;
    return out;
}

using Row = py::array_t<float, py::array::c_style>;
using MaskRow = py::array_t<int8_t, py::array::c_style>;

// The L of a batch's rows: `row` of 3 + 2L + R*L floats and `mask` of R*L bytes
// (R = CORE_RULES, L >= 1), both one-dimensional (C-contiguous float32 and int8:
// their types say so) and writable, and the limits `write_flat` takes in range.
py::ssize_t flat_length(const char* who, int64_t safe_constant, int safe_size,
                        int max_type_id, const Row& row, const MaskRow& mask) {
    const py::ssize_t cells = mask.size();
    const py::ssize_t length = cells / CORE_RULES;
    if (row.ndim() != 1 || mask.ndim() != 1 || length <= 0 || cells != CORE_RULES * length ||
        row.size() != 3 + 2 * length + cells)
        refuse(who, "row must hold 3 + 2L + R*L floats and mask R*L bytes (R = " +
                        std::to_string(CORE_RULES) + ", L >= 1), got " +
                        std::to_string(row.size()) + " floats (" +
                        std::to_string(row.ndim()) + "-d) and " + std::to_string(cells) +
                        " bytes (" + std::to_string(mask.ndim()) + "-d)");
    if (!row.writeable()) refuse(who, "row is read-only");
    if (!mask.writeable()) refuse(who, "mask is read-only");
    check_safe_constant(who, safe_constant);
    if (safe_size < 0) refuse(who, "safe_size " + std::to_string(safe_size) + " is negative");
    if (max_type_id < 1)
        refuse(who, "max_type_id must be at least 1, got " + std::to_string(max_type_id));
    return length;
}

// `mathy_native::write_flat` into a batch's rows (`flat_length` checked them),
// telling mathy_core's `is_simplified` of the expression.
std::optional<bool> write_flat(const Parsed& self, bool preferred, int64_t safe_constant,
                               int safe_size, int max_type_id, py::ssize_t length, Row& row,
                               MaskRow& mask) {
    mathy_native::FlatLimits limits;
    limits.preferred = preferred;
    limits.safe_constant = safe_constant;
    limits.safe_size = safe_size;
    limits.max_type_id = max_type_id;
    limits.length = length;
    return mathy_native::write_flat(self, limits, mathy_native::GOAL_SIMPLIFIED,
                                    row.mutable_data(), mask.mutable_data());
}

// One step of a batch: core rule `rule` at in-order node `column` (which the
// caller's mask allows), the parse of the printed text, and `write_flat` of the
// result. Returns `(expression, text, simplified)`, or None, having written
// nothing, where the library's Python path must take the step (the rewrite or
// the parse left to mathy_core, or where `write_flat` gives nothing).
py::object step_flat(const Parsed& self, int rule, int column, bool preferred,
                     int64_t safe_constant, int safe_size, int max_type_id, Row row,
                     MaskRow mask) {
    const py::ssize_t length =
        flat_length("step_flat", safe_constant, safe_size, max_type_id, row, mask);
    Tree rewritten;
    std::string text;
    if (!rewrite(self, rule, column, rewritten, text, nullptr)) return py::none();
    Parsed next;
    if (!mathy_native::parse_text(text, next)) return py::none();
    const std::optional<bool> simplified =
        write_flat(next, preferred, safe_constant, safe_size, max_type_id, length, row, mask);
    if (!simplified) return py::none();
    return py::make_tuple(py::cast(std::move(next)), text, *simplified);
}

// numpy's bit generator of `source`, one of numpy's own BitGenerator classes
// (exactly: a subclass may define its `capsule` otherwise), or a ValueError.
// The caller holds `source` (and its lock) for as long as it draws: the
// capsule does not keep the bit generator alive.
mathy_native::BitGenerator* bit_generator_of(const char* who, const py::object& source) {
    const py::module_ random = py::module_::import("numpy.random");
    bool known = false;
    for (const char* name : {"PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"})
        if (source.get_type().is(random.attr(name))) known = true;
    if (!known)
        refuse(who, "bit_generator must be one of numpy's bit generators (PCG64, PCG64DXSM, "
                    "MT19937, Philox, SFC64)");
    const py::object capsule = source.attr("capsule");
    if (!PyCapsule_IsValid(capsule.ptr(), "BitGenerator"))
        refuse(who, "the bit generator's capsule is not numpy's");
    return static_cast<mathy_native::BitGenerator*>(
        PyCapsule_GetPointer(capsule.ptr(), "BitGenerator"));
}

std::optional<std::pair<std::string, int64_t>> draw_problem(
    const py::object& capsule, int family, std::vector<int64_t> counts,
    std::vector<double> chances, std::vector<std::string> ops, std::string variables,
    std::string common_variables, const std::vector<int64_t>& numbers,
    const std::vector<int64_t>& limits) {
    const char* who = "draw_problem";
    mathy_native::BitGenerator* source = bit_generator_of(who, capsule);
    if (family < 0 || family >= mathy_native::PROBLEM_FAMILY_COUNT)
        refuse(who, "no problem family " + std::to_string(family));
    if (numbers.size() != 4)
        refuse(who, "numbers must hold 4 values, got " + std::to_string(numbers.size()));
    mathy_native::MoveLimits moves;
    std::string why;
    if (!mathy_native::move_limits(limits, moves, why)) refuse(who, why);
    mathy_native::ProblemConstants constants;
    constants.variables = std::move(variables);
    constants.common_variables = std::move(common_variables);
    constants.max_coefficient = numbers[0];
    constants.max_exponent = numbers[1];
    constants.max_attempts = numbers[2];
    constants.max_nodes = numbers[3];
    mathy_native::ProblemKnobs knobs{std::move(counts), std::move(chances), std::move(ops)};
    mathy_native::Draws draws(source);
    mathy_native::DrawnProblem drawn;
    if (!mathy_native::draw_problem(family, knobs, constants, moves, draws, drawn))
        return std::nullopt;
    return std::make_pair(std::move(drawn.text), drawn.complexity);
}

py::list replay_draws(const py::object& capsule, const std::vector<std::array<int64_t, 3>>& asked) {
    mathy_native::Draws draws(bit_generator_of("replay_draws", capsule));
    py::list values;
    for (const auto& [kind, a, b] : asked) {
        if (kind == 0) {
            values.append(draws.random());
        } else if (kind == 1) {
            const int64_t value = draws.integers(a, b);
            if (draws.failed()) {
                values.append(py::none());
                break;
            }
            values.append(value);
        } else if (kind == 2 && a >= 0 && a <= 1'000'000) {
            values.append(py::cast(draws.permutation(static_cast<int>(a))));
        } else {
            values.append(py::none());
            break;
        }
    }
    return values;
}

}  // namespace

PYBIND11_MODULE(_native, module) {
    module.doc() =
        "The native core: mathy_core's parser, printer and core-rule checks in C++.";
    module.attr("CORE_RULES") = CORE_RULES;
    {
        py::tuple rule_names(CORE_RULES);
        for (int rule = 0; rule < CORE_RULES; ++rule)
            rule_names[rule] = py::str(mathy_native::CORE_RULE_NAMES[rule]);
        // mathy_core's class name of each core rule, in action order: the rule
        // table this core implements (mathy_envs._engine.rules checks it).
        module.attr("CORE_RULE_NAMES") = rule_names;
    }
    module.attr("MAX_NODES") = mathy_native::MAX_NODES;
    module.def("key_hash", &mathy_native::key_hash, py::arg("key"),
               "values.py's `_Evaluator._hash` of a whole key: BLAKE2b with an "
               "8-byte digest, read big-endian, modulo 2^61 - 2, plus one.");

    {
        py::tuple families(static_cast<int>(mathy_native::PROBLEM_FAMILY_COUNT));
        for (int family = 0; family < mathy_native::PROBLEM_FAMILY_COUNT; ++family)
            families[family] = py::str(mathy_native::PROBLEM_FAMILY_NAMES[family]);
        // The problem families `draw_problem` draws, by index.
        module.attr("PROBLEM_FAMILIES") = families;
    }
    module.def("draw_problem", &draw_problem, py::arg("bit_generator"), py::arg("family"),
               py::arg("counts"), py::arg("chances"), py::arg("ops"), py::arg("variables"),
               py::arg("common_variables"), py::arg("numbers"), py::arg("limits"),
               "A problem of family `family` (an index of `PROBLEM_FAMILIES`) drawn from "
               "`bit_generator` (a numpy bit generator, its lock held by the caller) as "
               "mathy_envs' Python generator draws it: `(text, complexity)`, "
               "or None where the Python generator must draw it (the draws made are "
               "then the caller's to undo). `numbers`: problems.py's MAX_COEFFICIENT, "
               "MAX_EXPONENT, MAX_ATTEMPTS and MAX_NODES; `limits`: the move limits "
               "(`check_moves`').");
    module.def("replay_draws", &replay_draws, py::arg("bit_generator"), py::arg("draws"),
               "numpy Generator draws replayed on `bit_generator` (a numpy bit "
               "generator): for each `(kind, a, b)` of `draws`, kind 0 `random()`, 1 "
               "`integers(a, b)`, 2 `permutation(a)`; the values, as a list (None for a "
               "draw this core does not replay, which ends the list).");

    py::class_<Parsed>(module, "Expression")
        .def_static("parse", &parse, py::arg("text"),
                    "The tree of `text`, or None where mathy_core would raise or the "
                    "text is outside what the native core reproduces (anything but a "
                    "str with a UTF-8 form included).")
        .def("text", [](const Parsed& self) { return self.tree.text(); },
             "mathy_core's printed text of the tree.")
        .def("__len__", [](const Parsed& self) { return self.order.size(); })
        .def("build", &build, py::arg("classes"), py::arg("counter"),
             "mathy_core's tree of the text: `(root, nodes)`, the nodes made and "
             "linked as mathy_core's parser makes them, in creation order, `classes` "
             "being mathy_core's class of each node kind and the ids numbered from "
             "`counter + 1` (the nodes of `walk` and `apply` are these indices).")
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
                 Tree rewritten;
                 std::string text;
                 if (!rewrite(self, rule, column, rewritten, text, nullptr)) return std::nullopt;
                 return text;
             },
             py::arg("rule"), py::arg("node"),
             "The text of the whole expression after core rule `rule` (action order) "
             "is applied at in-order node `node` by mathy_core's `apply_to`, or None "
             "where the rule does not apply there or the native core leaves the "
             "arithmetic to mathy_core.")
        .def("apply_mask",
             [](const Parsed& self, py::buffer mask) {
                 const py::buffer_info info = mask.request();
                 if (info.ndim != 2 || info.itemsize != 1)
                     refuse("apply_mask", "the mask must be a (rules, nodes) grid of int8 "
                                          "cells, got " + std::to_string(info.ndim) +
                                          "-d of " + std::to_string(info.itemsize) +
                                          "-byte items");
                 const auto* cells = static_cast<const char*>(info.ptr);
                 const py::ssize_t rows = info.shape[0];
                 const py::ssize_t columns = info.shape[1];
                 if (rows > CORE_RULES || columns > static_cast<py::ssize_t>(self.order.size()))
                     refuse("apply_mask",
                            "the mask is " + std::to_string(rows) + " x " +
                                std::to_string(columns) + ", larger than the " +
                                std::to_string(CORE_RULES) + " rules x " +
                                std::to_string(self.order.size()) + " nodes of the expression");
                 py::list out;
                 for (py::ssize_t rule = 0; rule < rows; ++rule) {
                     for (py::ssize_t column = 0; column < columns; ++column) {
                         const auto at = rule * info.strides[0] + column * info.strides[1];
                         if (!cells[at]) continue;
                         Tree rewritten;
                         std::string text;
                         py::object written = py::none();
                         if (rewrite(self, static_cast<int>(rule), static_cast<int>(column),
                                     rewritten, text, nullptr)) {
                             written = py::str(text);
                         }
                         out.append(py::make_tuple(rule, column, written));
                     }
                 }
                 return out;
             },
             py::arg("mask"),
             "`(rule, node, apply(rule, node))` of every nonzero cell of `mask` (a "
             "`(rules, nodes)` int8 array, rules in action order), row by row: the "
             "text each move gives, None where `apply` gives None.")
        .def("offer",
             [](const Parsed& self, py::buffer valid, py::dict visits, py::buffer offered,
                py::buffer mask_values, int length) -> bool {
                 // masks.py's `more_visited` over the native rewrites of every
                 // valid cell, written into the batch's rows.
                 const py::buffer_info cells = valid.request();
                 const py::buffer_info out = offered.request();
                 const py::buffer_info values = mask_values.request();
                 const char* who = "offer";
                 if (cells.ndim != 1 || cells.itemsize != 1)
                     refuse(who, "valid must be a flat row of int8 cells, got " +
                                     std::to_string(cells.ndim) + "-d of " +
                                     std::to_string(cells.itemsize) + "-byte items");
                 if (out.ndim != 1 || out.itemsize != 1)
                     refuse(who, "offered must be a flat row of int8 cells, got " +
                                     std::to_string(out.ndim) + "-d of " +
                                     std::to_string(out.itemsize) + "-byte items");
                 if (values.ndim != 1 || values.itemsize != 4 ||
                     values.format != py::format_descriptor<float>::format())
                     refuse(who, "mask_values must be a flat row of float32, got " +
                                     std::to_string(values.ndim) + "-d of format '" +
                                     values.format + "'");
                 if (out.readonly) refuse(who, "offered is read-only");
                 if (values.readonly) refuse(who, "mask_values is read-only");
                 if (length <= 0)
                     refuse(who, "length " + std::to_string(length) + " is not positive");
                 const py::ssize_t width = static_cast<py::ssize_t>(length);
                 const py::ssize_t needed = cells.shape[0];
                 if (needed % width != 0 || needed / width > CORE_RULES)
                     refuse(who, "valid holds " + std::to_string(needed) +
                                     " cells, not the rows of at most " +
                                     std::to_string(CORE_RULES) + " rules of length " +
                                     std::to_string(length));
                 const py::ssize_t rows = needed / width;
                 if (needed > out.shape[0])
                     refuse(who, "the offered buffer (" + std::to_string(out.shape[0]) +
                                     " bytes) is smaller than valid (" +
                                     std::to_string(needed) + " cells)");
                 if (needed > values.shape[0])
                     refuse(who, "the mask_values buffer (" + std::to_string(values.shape[0]) +
                                     " floats) is smaller than valid (" +
                                     std::to_string(needed) + " cells)");
                 const auto* grid = static_cast<const char*>(cells.ptr);
                 const py::ssize_t step = cells.strides[0];
                 // Any valid move at the expression's nodes? (The cells past them
                 // are copied as they are.)
                 const py::ssize_t columns =
                     std::min(static_cast<py::ssize_t>(self.order.size()), width);
                 bool any = false;
                 for (py::ssize_t rule = 0; rule < rows && !any; ++rule)
                     for (py::ssize_t column = 0; column < columns && !any; ++column)
                         any = grid[(rule * width + column) * step] != 0;
                 // The visits, keyed by views of their texts' UTF-8. The views
                 // point into the keys, which `items` holds for the call: a
                 // count's own conversion (`__index__`) may change the dict.
                 std::unordered_map<std::string_view, long> seen;
                 std::vector<py::ssize_t> dropped;
                 py::list items;
                 if (any) {
                     items = py::reinterpret_steal<py::list>(PyDict_Items(visits.ptr()));
                     if (!items) throw py::error_already_set();
                     seen.reserve(items.size());
                     for (const auto& entry : items) {
                         const py::tuple pair = py::reinterpret_borrow<py::tuple>(entry);
                         PyObject* key = pair[0].ptr();
                         Py_ssize_t size = 0;
                         const char* data =
                             PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, &size) : nullptr;
                         long count = 0;
                         try {
                             if (data == nullptr) throw py::cast_error();
                             count = py::cast<long>(pair[1]);
                         } catch (const py::cast_error&) {
                             PyErr_Clear();
                             refuse(who, "visits must map texts (str) to visit counts (int)");
                         }
                         seen.emplace(std::string_view(data, static_cast<std::size_t>(size)),
                                      count);
                     }
                     const auto visits_of = [&seen](std::string_view text) -> long {
                         const auto found = seen.find(text);
                         return found == seen.end() ? 0 : found->second;
                     };
                     if (!mathy_native::more_visited(self, grid, step, rows, width, visits_of,
                                                     dropped))
                         return false;  // left to mathy_core: the caller decides
                 }
                 // Checked: write. The offered cells start as the valid ones.
                 auto* flags = static_cast<char*>(out.ptr);
                 auto* floats = static_cast<char*>(values.ptr);  // strides are in bytes
                 if (step == 1 && out.strides[0] == 1) {
                     // The rows may be views of one array (overlapping).
                     std::memmove(flags, grid, static_cast<std::size_t>(needed));
                 } else {
                     for (py::ssize_t at = 0; at < needed; ++at)
                         flags[at * out.strides[0]] = grid[at * step];
                 }
                 const float zero = 0.0f;
                 for (const py::ssize_t at : dropped) {
                     flags[at * out.strides[0]] = 0;
                     std::memcpy(floats + at * values.strides[0], &zero, sizeof zero);
                 }
                 return true;
             },
             py::arg("valid"), py::arg("visits"), py::arg("offered"), py::arg("mask_values"),
             py::arg("length"),
             "With `valid` the flat int8 valid-move mask of this expression (`rules * "
             "length` cells, action `rule * length + node`), `visits` the episode's "
             "visits per text, and `offered` (int8) and `mask_values` (float32) flat "
             "rows of at least as many cells: copy `valid` into `offered`, then zero, in "
             "both rows, the cells of the valid moves whose result (`apply`) was visited "
             "more often than another's (masks.py's `more_visited`); a cell past the "
             "expression's nodes is copied as it is. False, writing "
             "nothing, where a rewrite is left to mathy_core. ValueError, writing "
             "nothing, where `valid` is not whole rows of `length` cells of at most the "
             "core rules, a buffer is smaller than "
             "`valid`, read-only or of another type, or `visits` holds anything but "
             "counts of texts.")
        .def("rewrite_reads_as",
             [](const Parsed& self, int rule, int column,
                const Parsed& other) -> std::optional<bool> {
                 Tree rewritten;
                 std::string text;
                 int top = mathy_native::NO_NODE;
                 if (!rewrite(self, rule, column, rewritten, text, &top)) return std::nullopt;
                 return rewritten.same(top, other.tree, other.tree.root);
             },
             py::arg("rule"), py::arg("node"), py::arg("other"),
             "Whether the tree `apply(rule, node)` prints is, to the letter, the tree "
             "of `other` (the parse of that text, which mathy_core's printer can "
             "make another tree), as values.same_tree compares them; None where "
             "`apply` gives None.")
        .def("admission",
             [](const Parsed& self, int64_t safe_constant) {
                 check_safe_constant("admission", safe_constant);
                 const Tree::Admission a = self.tree.admission(self.order, safe_constant);
                 py::list constants;
                 for (int index : a.constants) {
                     const auto& n = self.tree.nodes[index];
                     if (n.is_float) constants.append(py::float_(n.float_value));
                     else constants.append(py::int_(n.int_value));
                 }
                 return py::make_tuple(a.safe, a.check_value, a.has_equation, a.unary,
                                       constants);
             },
             py::arg("safe_constant"),
             "admission.py's `admit` loop: `(safe, check_value, has_equation, unary, "
             "constants)`, safe before the size test, and the values of the constants "
             "to check against the limits, in action order.")
        .def("variable_powers",
             [](const Parsed& self) { return mathy_native::variable_powers(self.tree); },
             "Whether a power of a variable has an exponent that is not an integer "
             "constant (values.py's `root_denominators` is then ROOT_DENOMINATORS).")
        .def("variables",
             [](const Parsed& self) {
                 std::string names;
                 for (const auto& n : self.tree.nodes)
                     if (n.kind == mathy_native::VARIABLE &&
                         names.find(n.name) == std::string::npos)
                         names.push_back(n.name);
                 std::sort(names.begin(), names.end());
                 return names;
             },
             "The distinct variable names of the tree, sorted.")
        .def("point_values",
             [](const Parsed& self, const Points& points, int64_t roots) {
                 check_points("point_values", points, roots);
                 return point_values(self.tree, self.tree.root, points, roots);
             },
             py::arg("points"), py::arg("roots"),
             "values.py's exact value of the expression modulo 2^61 - 1 at each point "
             "(52 values: `a`-`z` then `A`-`Z`, 0 for none), each variable of degree "
             "`roots`; None where the tree is outside the native evaluator's reach "
             "(see native/values.cpp).")
        .def("symbolic_value",
             [](const Parsed& self, const std::string& prefix) -> std::optional<uint64_t> {
                 uint64_t value = 0;
                 if (self.tree.root == mathy_native::NO_NODE ||
                     !self.tree.symbolic_value(self.tree.root, prefix, value))
                     return std::nullopt;
                 return value;
             },
             py::arg("prefix"),
             "values.py's symbolic value of the expression (`same_expression`'s "
             "evaluator, its hash keys prefixed with `prefix`), or None where the "
             "tree is outside the native evaluator's reach.")
        .def("rewrite_values",
             [](const Parsed& self, int rule, int column, const Points& points, int64_t roots,
                const std::string& prefix)
                 -> std::optional<std::pair<std::optional<std::vector<uint64_t>>,
                                            std::optional<uint64_t>>> {
                 check_points("rewrite_values", points, roots);
                 Tree rewritten;
                 std::string text;
                 int top = mathy_native::NO_NODE;
                 if (!rewrite(self, rule, column, rewritten, text, &top)) return std::nullopt;
                 std::optional<uint64_t> symbolic;
                 uint64_t value = 0;
                 if (rewritten.symbolic_value(top, prefix, value)) symbolic = value;
                 return std::make_pair(point_values(rewritten, top, points, roots), symbolic);
             },
             py::arg("rule"), py::arg("node"), py::arg("points"), py::arg("roots"),
             py::arg("prefix"),
             "`(point_values(points, roots), symbolic_value(prefix))` of the tree "
             "mathy_core's `apply_to` of core rule `rule` at node `node` makes (before "
             "printing), each None where out of reach; None where `apply` gives None.")
        .def("like_terms_grouped",
             [](const Parsed& self) -> std::optional<bool> {
                 const Tree::Answer answer = self.tree.like_terms_grouped();
                 if (answer == Tree::UNKNOWN) return std::nullopt;
                 return answer == Tree::YES;
             },
             "mathy_envs' `like_terms_grouped` of the whole expression (every kind of "
             "term of its sum forms one contiguous run), or None where the native core "
             "leaves it to the Python path (an exponent a double does not hold "
             "exactly).")
        .def("like_term_positions",
             [](const Parsed& self)
                 -> std::optional<std::pair<std::vector<int>, std::vector<int>>> {
                 std::vector<int> likes, terms;
                 if (self.tree.like_term_positions(self.order, likes, terms) != Tree::YES)
                     return std::nullopt;
                 return std::make_pair(likes, terms);
             },
             "mathy_envs' `like_term_indexes` and `term_indexes` of the in-order nodes: "
             "the positions of the root sum's terms that have a like term elsewhere in "
             "it, and of all its terms, sorted; None where the native core leaves them "
             "to the Python path (an exponent a double does not hold exactly).")
        .def("simplified",
             [](const Parsed& self) -> std::optional<bool> {
                 const Tree::Answer answer = self.tree.simplified();
                 if (answer == Tree::UNKNOWN) return std::nullopt;
                 return answer == Tree::YES;
             },
             "mathy_core's `is_simplified` of the whole expression (no like terms, "
             "every term in preferred form), or None where mathy_core would raise "
             "or the native core leaves it to mathy_core.")
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
             "(rule, node) bytes of 0 and 1.")
        .def("check_moves",
             [](const Parsed& self, const std::string& text, bool preferred_commute,
                const std::vector<int64_t>& limits) {
                 mathy_native::MoveLimits moves;
                 std::string why;
                 if (!mathy_native::move_limits(limits, moves, why)) refuse("check_moves", why);
                 // The seed is the expression's own text, within the limits.
                 if (static_cast<int64_t>(text.size()) > moves.max_text_length)
                     refuse("check_moves", "text is longer than max_text_length (" +
                                               std::to_string(moves.max_text_length) +
                                               " characters)");
                 const size_t count = self.order.size();
                 std::string cells(CORE_RULES * count, '\0');
                 mathy_native::MoveChecker checker(self, text, moves);
                 for (int rule = 0; rule < CORE_RULES; ++rule)
                     for (size_t column = 0; column < count; ++column)
                         if (self.tree.can_apply(rule, self.order[column], preferred_commute))
                             cells[rule * count + column] = static_cast<char>(
                                 checker.check(rule, static_cast<int>(column)));
                 return py::bytes(cells);
             },
             py::arg("text"), py::arg("preferred_commute").noconvert(), py::arg("limits"),
             "masks.py's checks of the moves `mask(preferred_commute)` accepts, on this "
             "expression parsed from `text` (the seed of values.py's points), `limits` "
             "being the library's (admission.MOVE_LIMITS): row-major (rule, node) bytes, "
             "0 for no valid action, 1 for a result that is an admissible text with "
             "the expression's value, 2 where the check is left to the Python path.")
        .def("write_flat",
             [](const Parsed& self, bool preferred, int64_t safe_constant, int safe_size,
                int max_type_id, Row row, MaskRow mask) {
                 const py::ssize_t length = flat_length("write_flat", safe_constant, safe_size,
                                                        max_type_id, row, mask);
                 return write_flat(self, preferred, safe_constant, safe_size, max_type_id,
                                   length, row, mask);
             },
             py::arg("preferred_commute"), py::arg("safe_constant"), py::arg("safe_size"),
             py::arg("max_type_id"), py::arg("row").noconvert(), py::arg("mask").noconvert(),
             "A batch's rows of this expression where the native core answers every "
             "part: its flat observation from index 3 on written into `row` and its "
             "mask into `mask`; returns mathy_core's `is_simplified` of it, or None, "
             "with nothing written, where the library's Python path must take over.")
        .def("step_flat", &step_flat, py::arg("rule"), py::arg("node"),
             py::arg("preferred_commute"), py::arg("safe_constant"), py::arg("safe_size"),
             py::arg("max_type_id"), py::arg("row").noconvert(), py::arg("mask").noconvert(),
             "A batch's step where the native core answers every part: `(expression, "
             "text, simplified)` of core rule `rule` at node `node`, its flat "
             "observation from index 3 on written into `row` and its mask into "
             "`mask`; None, with nothing written, where the library's Python path "
             "must take the step.");
    mathy_native::bind_batch(module);
}
