"""The program's code as a rank runs it: attribute writes on imported names go through the rank.

``json.dumps = f``, ``del math.pi``, ``json.decoder.scanstring = g`` (an
assignment or deletion of an attribute of a name the file binds by
``import``, directly or through attributes) become
``__ppt_writable__(json).dumps = f`` ...: the rank's ``__ppt_writable__``
(:meth:`~ppt.exec.program.RankRun.writable`) makes a shared module copy on
write (:mod:`ppt.exec.cow`) before the write, and gives anything else back
as it is.  Other attribute writes (``self.x = v``) are left alone and cost
nothing more.  Not covered: a module reached through another name
(``m = json; m.dumps = f``) or through ``sys.modules``.
"""
from __future__ import annotations

import ast

#: The builtin name through which a rank's code makes a module writable.
HOOK = "__ppt_writable__"


def _imported_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.asname or alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names if alias.name != "*")
    return names


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


class _Writes(ast.NodeTransformer):
    def __init__(self, imported: set[str]):
        self.imported = imported

    def visit_Attribute(self, node: ast.Attribute) -> ast.Attribute:
        self.generic_visit(node)
        root = _root(node.value)
        if isinstance(node.ctx, (ast.Store, ast.Del)) and isinstance(root, ast.Name) and root.id in self.imported:
            hook = ast.Call(ast.Name(HOOK, ast.Load()), [node.value], [])
            node.value = ast.copy_location(hook, node.value)
            ast.fix_missing_locations(node.value)
        return node


def routed(tree: ast.Module) -> ast.Module:
    """``tree`` (a parsed file) with its attribute writes on imported names routed through :data:`HOOK`."""
    imported = _imported_names(tree)
    return _Writes(imported).visit(tree) if imported else tree
