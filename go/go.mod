module wq.dev/go

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	golang.org/x/time v0.15.0
	k8s.io/apimachinery v0.37.2
	k8s.io/client-go v0.37.2
	k8s.io/klog/v2 v2.140.0
	k8s.io/utils v0.0.0-20260626114624-be93311217bd
)

require github.com/go-logr/logr v1.4.3 // indirect
