"""The archive a kept run's records travel in: one tar per folder of results/reference/, xz-compressed, which is
about 40 % smaller than gzip on these JSON lines (an H200 run's 47 MB of records: 13.4 MB as .tar.gz, 7.7 MB as
.tar.xz), so that the project's tree, reference runs included, stays small enough to copy to a lent machine.
`tar xJf records.tar.xz` unpacks one; Python's tarfile reads it as it is."""
import lzma
import tarfile
import zlib

ARCHIVE = "records.tar.xz"
# What reading a damaged archive raises: a TarError or OSError where its header or members are wrong, EOFError where
# it is cut short, and the decompressor's own error where its compressed data is damaged inside (tarfile detects the
# compression by itself, so an archive gzip-compressed under this name raises zlib's). Neither reader lets one of
# these end its command: the atlas names the archive in a warning, the estimator goes on without that run.
DAMAGED = (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error)
