"""Upload handling that refuses an oversized body while it streams in, not after."""

from django.core.files.uploadhandler import FileUploadHandler, StopUpload


class MaxSizeUploadHandler(FileUploadHandler):
    """Stops reading a multipart body once its files pass ``limit`` bytes."""

    def __init__(self, request=None, *, limit: int):
        super().__init__(request)
        self.limit = limit
        self.received = 0
        self.exceeded = False

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > self.limit:
            self.exceeded = True
            raise StopUpload(connection_reset=True)
        return raw_data

    def file_complete(self, file_size):
        return None
