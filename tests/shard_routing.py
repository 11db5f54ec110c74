"""Whether a SQL statement could be routed to one shard of a database distributed by memory id.

The PostgreSQL schema is meant to be distributable by memory (Citus: every table that carries
``memory_id`` distributed by it and colocated; ``memories``, ``grants`` and the account tables
as reference tables copied to every node; ``docs/scaling.md``). A statement can go to one
shard when every distributed table it reads or writes is pinned to one memory: its
``memory_id`` is compared with a parameter or a constant, inserted from one, or equated with
the ``memory_id`` of a table that is pinned (a colocated join).

:func:`unroutable` parses a statement with PostgreSQL's own parser (pglast) and says why it
could not be routed, or returns None. DDL and other utility statements (migrations, the
per-dimension vector indexes, advisory locks) are not routed but propagated to every node,
and are not judged here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from pglast import ast, parse_sql
from pglast.enums import A_Expr_Kind

DISTRIBUTION_COLUMN = "memory_id"
# Tables that carry memory_id but are copied to every node: who may open which memory is read
# by principal, across memories, on every request.
REFERENCE_TABLES = frozenset({"grants"})

_PLACEHOLDER = re.compile(r"%\((\w+)\)[sbt]|%[sbt]|%%")


def _numbered(sql: str) -> str:
    """psycopg's client-side placeholders as PostgreSQL's ($1, $2, ...)."""
    numbers: dict[str, int] = {}
    count = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal count
        if m.group(0) == "%%":
            return "%"
        if m.group(1):
            if m.group(1) not in numbers:
                count += 1
                numbers[m.group(1)] = count
            return f"${numbers[m.group(1)]}"
        count += 1
        return f"${count}"

    return _PLACEHOLDER.sub(repl, sql)


def _children(node: object) -> Iterator[object]:
    if isinstance(node, (list, tuple)):
        yield from node
    elif isinstance(node, ast.Node):
        for name in type(node).__slots__:
            value = getattr(node, name, None)
            if isinstance(value, (ast.Node, list, tuple)):
                yield value


_SCOPES = (ast.SelectStmt, ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt)


class _Scope:
    """One query level: the tables it names (by alias) and the conditions it states."""

    def __init__(self, parent: _Scope | None, distributed: frozenset[str]) -> None:
        self.parent = parent
        self.distributed = distributed
        self.tables: dict[str, str] = {}  # alias -> distributed table name

    def resolve(self, qualifier: str | None) -> tuple[_Scope, str] | None:
        scope: _Scope | None = self
        while scope is not None:
            if qualifier is None:
                if len(scope.tables) == 1:
                    return scope, next(iter(scope.tables))
                if scope.tables:
                    return None  # ambiguous; PostgreSQL would refuse it too
            elif qualifier in scope.tables:
                return scope, qualifier
            scope = scope.parent
        return None


class _Checker:
    def __init__(self, distributed: frozenset[str]) -> None:
        self.distributed = distributed
        self.parent: dict[tuple[int, str], tuple[int, str]] = {}
        self.pinned: set[tuple[int, str]] = set()
        self.tables: list[tuple[_Scope, str, str]] = []  # scope, alias, table

    def _find(self, key: tuple[int, str]) -> tuple[int, str]:
        while self.parent.get(key, key) != key:
            key = self.parent[key]
        return key

    def _union(self, a: tuple[int, str], b: tuple[int, str]) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[ra] = rb
            if ra in self.pinned:
                self.pinned.add(rb)

    def _pin(self, key: tuple[int, str]) -> None:
        self.pinned.add(self._find(key))

    def visit(self, node: object, scope: _Scope | None) -> None:
        if isinstance(node, _SCOPES):
            inner = _Scope(scope, self.distributed)
            self._collect_tables(node, inner)
            self._conditions(node, inner)
            for child in _children(node):
                self.visit(child, inner)
            return
        for child in _children(node):
            self.visit(child, scope)

    def _collect_tables(self, node: object, scope: _Scope) -> None:
        roots: list[object] = []
        if isinstance(node, ast.SelectStmt):
            roots = list(node.fromClause or ())
        elif isinstance(node, ast.InsertStmt):
            roots = [node.relation]
        elif isinstance(node, ast.UpdateStmt):
            roots = [node.relation, *(node.fromClause or ())]
        elif isinstance(node, ast.DeleteStmt):
            roots = [node.relation, *(node.usingClause or ())]
        stack = roots
        while stack:
            item = stack.pop()
            if isinstance(item, ast.RangeVar):
                if item.relname not in self.distributed or item.schemaname:
                    continue  # a catalog, a query's own CTE, a function's rows
                alias = item.alias.aliasname if item.alias else item.relname
                scope.tables[alias] = item.relname
                self.tables.append((scope, alias, item.relname))
            elif isinstance(item, ast.JoinExpr):
                stack.extend([item.larg, item.rarg])
                for name in item.usingClause or ():
                    if name.sval == DISTRIBUTION_COLUMN:
                        self._join_using(item, scope)

    def _join_using(self, join: ast.JoinExpr, scope: _Scope) -> None:
        sides = []
        for side in (join.larg, join.rarg):
            if isinstance(side, ast.RangeVar):
                sides.append(side.alias.aliasname if side.alias else side.relname)
        if len(sides) == 2:
            self._union((id(scope), sides[0]), (id(scope), sides[1]))

    def _column(self, node: object, scope: _Scope) -> tuple[int, str] | None:
        """The table whose distribution column ``node`` is, if it is one."""
        if not isinstance(node, ast.ColumnRef):
            return None
        names = [f.sval for f in node.fields if isinstance(f, ast.String)]
        if not names or names[-1] != DISTRIBUTION_COLUMN:
            return None
        found = scope.resolve(names[0] if len(names) == 2 else None)
        if found is None:
            return None
        where, alias = found
        return id(where), alias

    def _conditions(self, node: object, scope: _Scope) -> None:
        quals: list[object] = []
        if isinstance(node, (ast.SelectStmt, ast.UpdateStmt, ast.DeleteStmt)):
            quals.append(node.whereClause)
        if isinstance(node, ast.SelectStmt):
            stack = list(node.fromClause or ())
            while stack:
                item = stack.pop()
                if isinstance(item, ast.JoinExpr):
                    quals.append(item.quals)
                    stack.extend([item.larg, item.rarg])
        for qual in quals:
            self._equalities(qual, scope)
        if isinstance(node, ast.InsertStmt) and node.cols:
            names = [c.name for c in node.cols]
            if DISTRIBUTION_COLUMN in names:
                self._inserted(node, scope, names.index(DISTRIBUTION_COLUMN))

    def _inserted(self, node: ast.InsertStmt, scope: _Scope, at: int) -> None:
        source = node.selectStmt
        alias = next(iter(scope.tables), None)
        if alias is None or not isinstance(source, ast.SelectStmt):
            return
        rows = [list(v) for v in source.valuesLists or ()]
        if not rows:  # INSERT ... SELECT: the value is the select's column
            rows = [[t.val for t in source.targetList or ()]]
        values = [row[at] if at < len(row) else None for row in rows]
        if all(isinstance(v, (ast.ParamRef, ast.A_Const)) for v in values):
            self._pin((id(scope), alias))
        elif all(isinstance(v, ast.ColumnRef) for v in values):
            inner = _Scope(scope, self.distributed)
            self._collect_tables(source, inner)
            self._conditions(source, inner)
            for v in values:
                found = self._column(v, inner)
                if found is not None:
                    self._union((id(scope), alias), found)

    def _equalities(self, qual: object, scope: _Scope) -> None:
        if isinstance(qual, ast.BoolExpr):
            if qual.boolop == 0:  # AND: each part holds
                for arg in qual.args:
                    self._equalities(arg, scope)
            return  # an OR or NOT pins nothing
        if not isinstance(qual, ast.A_Expr) or qual.kind != A_Expr_Kind.AEXPR_OP:
            return
        if [n.sval for n in qual.name] != ["="]:
            return
        left, right = self._column(qual.lexpr, scope), self._column(qual.rexpr, scope)
        if left and right:
            self._union(left, right)
        elif left and isinstance(qual.rexpr, (ast.ParamRef, ast.A_Const)):
            self._pin(left)
        elif right and isinstance(qual.lexpr, (ast.ParamRef, ast.A_Const)):
            self._pin(right)

    def unpinned(self) -> list[str]:
        return sorted(
            {
                table
                for scope, alias, table in self.tables
                if self._find((id(scope), alias)) not in self.pinned
            }
        )


@cache
def unroutable(sql: str, distributed: frozenset[str]) -> str | None:
    """Why ``sql`` (psycopg placeholders allowed) could not go to one shard when the tables
    ``distributed`` are distributed by memory; None if it can."""
    reasons = []
    for raw in parse_sql(_numbered(sql)):
        stmt = raw.stmt
        if not isinstance(stmt, _SCOPES):
            continue  # DDL, SET, ANALYZE, transaction control: propagated, not routed
        checker = _Checker(distributed)
        checker.visit(stmt, None)
        missing = checker.unpinned()
        if missing:
            reasons.append(f"not pinned to one memory: {', '.join(missing)}")
    return "; ".join(reasons) or None


# The statements that reach across memories on purpose, each with why. Anything else the
# store sends must be routable to one memory's shard.
EXCEPTIONS: dict[str, str] = {
    # Maintenance at open, once per process: rows left behind by an older layout, found in
    # whichever memory holds them.
    "SELECT memory_id, kind, ref, data FROM vectors WHERE embedding IS NULL": (
        "open: fill the pgvector column of rows written before it existed"
    ),
    "SELECT memory_id, kind FROM vector_stats WHERE vectors >": (
        "open: find the memories whose vectors are not all in the HNSW index yet"
    ),
}


def excepted(sql: str) -> str | None:
    """The reason a statement may reach across memories, if it is a documented exception."""
    text = " ".join(sql.split())
    return next((why for start, why in EXCEPTIONS.items() if text.startswith(start)), None)
