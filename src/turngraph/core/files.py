"""Appendix files: sources too long for an observation, stored per memory by path."""

from __future__ import annotations

import hashlib
import mimetypes
import re
from datetime import UTC, datetime
from posixpath import basename

from turngraph.config import Limits
from turngraph.core.validate import optional_text, required_text, validate_file_path
from turngraph.errors import ConflictError, NotFoundError, TooLargeError, ValidationError
from turngraph.models import AppendixFile, FileContent
from turngraph.store.base import FileRow, ReadTx, Store

_CONTENT_TYPE = re.compile(r"^[\w.+-]+/[\w.+-]+(\s*;\s*[\w.+-]+=[\w.+\"-]+)*$")


def _file_model(row: FileRow) -> AppendixFile:
    return AppendixFile(
        path=row.path,
        filename=row.filename,
        content_type=row.content_type,
        size=row.size,
        sha256=row.sha256,
        description=row.description,
        created_by=row.created_by,
        created_at=row.created_at,
    )


class FileOps:
    """The appendix-file operations of a :class:`~turngraph.Memory`."""

    name: str
    _store: Store
    _id: int
    _limits: Limits

    def put_file(
        self,
        path: str,
        data: bytes | str,
        *,
        description: str,
        created_by: str | None = None,
        content_type: str | None = None,
        overwrite: bool = False,
    ) -> AppendixFile:
        """Store a file under a relative ``path`` (text is stored as UTF-8).

        Raises ValidationError for an absolute path, '..', an empty description or a bad
        content type; TooLargeError over the size limit; ConflictError when the path exists
        and ``overwrite`` is false.
        """
        lim = self._limits
        path = validate_file_path(path, limits=lim)
        if isinstance(data, str):
            blob = data.encode("utf-8")
            default_type = "text/plain; charset=utf-8"
        elif isinstance(data, (bytes, bytearray, memoryview)):
            blob = bytes(data)
            default_type = "application/octet-stream"
        else:
            raise ValidationError(
                f"data must be bytes or str, not {type(data).__name__}", field="data"
            )
        if len(blob) > lim.file_bytes:
            raise TooLargeError(
                f"file {path!r} is {len(blob):,} bytes; the limit is {lim.file_bytes:,}",
                field="data",
                path=path,
                limit=lim.file_bytes,
            )
        desc = required_text(
            description,
            field="description",
            limit=lim.file_description_chars,
            multiline=True,
            path=path,
        )
        author = optional_text(created_by, field="created_by", limit=200) or "unknown"
        if content_type is None:
            guessed, _ = mimetypes.guess_type(path, strict=False)
            ctype = guessed or default_type
        else:
            ctype = required_text(content_type, field="content_type", limit=200)
            if not _CONTENT_TYPE.match(ctype):
                raise ValidationError(
                    f"content_type {ctype!r} is not a media type like 'text/markdown'",
                    field="content_type",
                )
        row = FileRow(
            path,
            basename(path),
            ctype,
            len(blob),
            hashlib.sha256(blob).hexdigest(),
            desc,
            author,
            datetime.now(UTC),
            blob,
        )
        with self._store.write(self._id) as tx:
            if not overwrite and tx.get_file(path, with_data=False) is not None:
                raise ConflictError(
                    f"file {path!r} already exists in memory {self.name!r}; pass "
                    "overwrite=True to replace it",
                    memory=self.name,
                    path=path,
                )
            tx.put_file(row)
        return _file_model(row)

    def get_file(self, path: str) -> FileContent:
        """A file's metadata and bytes; NotFoundError if there is none at ``path``."""
        path = validate_file_path(path, limits=self._limits)
        with self._store.read(self._id) as tx:
            row = tx.get_file(path, with_data=True)
        if row is None or row.data is None:
            raise NotFoundError(
                f"no file {path!r} in memory {self.name!r}", memory=self.name, path=path
            )
        return FileContent(file=_file_model(row), data=row.data)

    def list_files(self, prefix: str | None = None) -> list[AppendixFile]:
        """Every file (or those under a folder ``prefix``), by path."""
        if prefix is not None:
            prefix = (
                validate_file_path(prefix.rstrip("/"), limits=self._limits, field="prefix") + "/"
            )
        with self._store.read(self._id) as tx:
            return [_file_model(r) for r in tx.list_files(prefix=prefix)]

    def delete_file(self, path: str) -> AppendixFile:
        """Delete a file; ConflictError while an observation still references it."""
        path = validate_file_path(path, limits=self._limits)
        with self._store.write(self._id) as tx:
            row = tx.get_file(path, with_data=False)
            if row is None:
                raise NotFoundError(
                    f"no file {path!r} in memory {self.name!r}", memory=self.name, path=path
                )
            citing = tx.observations_citing_file(path)
            if citing:
                raise ConflictError(
                    f"file {path!r} is referenced by observation(s) {', '.join(citing[:10])}; "
                    "remove the reference (update_observation remove_files=...) first",
                    memory=self.name,
                    path=path,
                    observations=citing,
                )
            tx.delete_file(path)
        return _file_model(row)

    def _check_files_exist(self, tx: ReadTx, paths: list[str], *, field: str) -> None:
        for i, path in enumerate(paths):
            if tx.get_file(path, with_data=False) is None:
                raise ValidationError(
                    f"{field}[{i}] references {path!r}, which is not a file in memory "
                    f"{self.name!r}; store it with put_file first",
                    field=f"{field}[{i}]",
                    path=path,
                )
