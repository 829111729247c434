"""Files uploaded as Slack's external uploads go: a ticket, the bytes, then the share.

1. `files.getUploadURLExternal(filename, length)` answers an `upload_url` and a `file_id`;
2. the bytes are POSTed to that URL (raw, or as a multipart form's one file); the emulator
   answers `OK - <length>` as Slack's upload service does;
3. `files.completeUploadExternal(files=[{id, title}], channel_id | channels, initial_comment)`
   shares them; until then a file is nobody's to see.
https://docs.slack.dev/messaging/working-with-files#uploading_files
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

UPLOAD_PATH: Final = "/upload"


@dataclass
class Upload:
    """One file: what the ticket announced, the bytes that arrived, and where it was shared."""

    id: str
    filename: str
    length: int
    content: bytes | None = None  # None: the bytes never arrived
    title: str | None = None
    channels: list[str] = field(default_factory=list)
    comment: str | None = None
    completed: bool = False  # files.completeUploadExternal took it
    shared_ts: str | None = None  # the message that shares it (None: private, or not yet)

    @property
    def text(self) -> str:
        """The content as UTF-8 text ("" before it arrived)."""
        return (self.content or b"").decode()


class Files:
    """Every upload of the workspace, by file id."""

    def __init__(self) -> None:
        self.base_url = ""  # the emulator's address, known once it listens
        self._uploads: dict[str, Upload] = {}
        self._count = 0

    def ticket(self, filename: str, length: int) -> Upload:
        """A new upload waiting for its bytes."""
        self._count += 1
        upload = Upload(id=f"F{self._count:010d}", filename=filename, length=length)
        self._uploads[upload.id] = upload
        return upload

    def url(self, upload: Upload) -> str:
        """Where the bytes of `upload` are to be POSTed."""
        return f"{self.base_url}{UPLOAD_PATH}/{upload.id}"

    def receive(self, file_id: str, content: bytes) -> Upload | None:
        """Keep the bytes of `file_id`; None if no ticket names it."""
        upload = self._uploads.get(file_id)
        if upload is not None:
            upload.content = content
        return upload

    def get(self, file_id: str) -> Upload | None:
        """The upload with this id."""
        return self._uploads.get(file_id)

    def shared(self) -> list[Upload]:
        """The files completed so far (shared, or private), in the order they were ticketed."""
        return [u for u in self._uploads.values() if u.completed]
