"""The archive a kept run's records travel in: one tar per folder of results/reference/, xz-compressed, which is
about 40 % smaller than gzip on these JSON lines (an H200 run's 47 MB of records: 13.4 MB as .tar.gz, 7.7 MB as
.tar.xz), so that the project's tree, reference runs included, stays small enough to copy to a lent machine.
`tar xJf records.tar.xz` unpacks one; Python's tarfile reads it as it is."""

ARCHIVE = "records.tar.xz"
