module wq.dev/go

go 1.22
