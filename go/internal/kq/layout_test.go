package kq

// The ABI against the C header, as a C program printed it (testdata/
// layout.c, run by `make go`; WQ_LAYOUT_FILE names its output): struct
// sizes and field offsets, the command numbers, the flags and values.

import (
	"bufio"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var layoutTypes = map[string]reflect.Type{
	"wq_limiter_term": reflect.TypeOf(LimiterTerm{}),
	"wq_limiter":      reflect.TypeOf(Limiter{}),
	"wq_create":       reflect.TypeOf(Create{}),
	"wq_name":         reflect.TypeOf(Name{}),
	"wq_add":          reflect.TypeOf(Add{}),
	"wq_get":          reflect.TypeOf(Get{}),
	"wq_key":          reflect.TypeOf(Key{}),
	"wq_key_info":     reflect.TypeOf(KeyInfo{}),
	"wq_shutdown":     reflect.TypeOf(Shutdown{}),
	"wq_queue_info":   reflect.TypeOf(QueueInfo{}),
	"wq_module_info":  reflect.TypeOf(ModuleInfo{}),
}

var layoutCommands = map[string]uintptr{
	"WQ_IOC_MODULE_INFO": IocModuleInfo, "WQ_IOC_CREATE": IocCreate,
	"WQ_IOC_OPEN": IocOpen, "WQ_IOC_DESTROY": IocDestroy, "WQ_IOC_ADD": IocAdd,
	"WQ_IOC_GET": IocGet, "WQ_IOC_DONE": IocDone, "WQ_IOC_SHUTDOWN": IocShutdown,
	"WQ_IOC_STAT": IocStat, "WQ_IOC_FORGET": IocForget,
	"WQ_IOC_NUM_REQUEUES": IocNumRequeues, "WQ_IOC_KEY_STATE": IocKeyState,
	"WQ_IOC_CANCEL_AFTER": IocCancelAfter,
}

var layoutConstants = map[string]int64{
	"WQ_KEY_MAX": KeyMax, "WQ_NAME_MAX": NameMax, "WQ_LIMITER_TERMS_MAX": TermsMax,
	"WQ_LIMITER_EXPONENTIAL": LimiterExponential, "WQ_LIMITER_BUCKET": LimiterBucket,
	"WQ_LIMITER_FASTSLOW": LimiterFastSlow, "WQ_LIMITER_MAXWAIT": LimiterMaxWait,
	"WQ_CREATE_PRIVATE": CreatePrivate, "WQ_CREATE_PRIORITY": CreatePriority,
	"WQ_ADD_RATE_LIMITED": AddRateLimited, "WQ_ADD_AFTER": AddAfter,
	"WQ_ADD_PRIORITY": AddPriority, "WQ_ADDED_QUEUED": AddedQueued,
	"WQ_ADDED_COALESCED": AddedCoalesced, "WQ_ADDED_DIRTY": AddedDirty,
	"WQ_ADDED_WAITING": AddedWaiting, "WQ_ADDED_KEPT": AddedKept,
	"WQ_GET_NONBLOCK": GetNonblock, "WQ_KEY_RESULT_STATE": KeyResultState,
	"WQ_KEY_QUEUED": KeyQueued, "WQ_KEY_PROCESSING": KeyProcessing,
	"WQ_KEY_DIRTY": KeyDirty, "WQ_KEY_WAITING": KeyWaiting, "WQ_KEY_TRACKED": KeyTracked,
	"WQ_SHUTDOWN_DRAIN": ShutdownDrain, "WQ_SHUTDOWN_DISCARD": ShutdownDiscard,
	"WQ_STATE_SHUTTING_DOWN": StateShuttingDown,
	"WQ_FEATURE_ADD_OUTCOME": FeatureAddOutcome, "WQ_FEATURE_KEY_STATE": FeatureKeyState,
	"WQ_FEATURE_PRIORITY": FeaturePriority, "WQ_FEATURE_KEY_CALLS": FeatureKeyCalls,
}

func TestLayoutMatchesTheHeader(t *testing.T) {
	path := os.Getenv("WQ_LAYOUT_FILE")
	if path == "" {
		t.Skip("WQ_LAYOUT_FILE not set (make go-check writes it)")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		w := strings.Fields(s.Text())
		if len(w) != 3 {
			t.Errorf("a line not understood: %q", s.Text())
			continue
		}
		want, err := strconv.ParseInt(w[2], 10, 64)
		if err != nil {
			t.Errorf("%q: %v", s.Text(), err)
			continue
		}
		seen[w[0]+" "+w[1]] = true
		switch w[0] {
		case "struct":
			checkStruct(t, w[1], want)
		case "field":
			checkField(t, w[1], want)
		case "ioc":
			if got, ok := layoutCommands[w[1]]; !ok {
				t.Errorf("no Go command for %s", w[1])
			} else if int64(got) != want {
				t.Errorf("%s: Go %#x, C %#x", w[1], got, want)
			}
		case "const":
			if got, ok := layoutConstants[w[1]]; !ok {
				t.Errorf("no Go constant for %s", w[1])
			} else if got != want {
				t.Errorf("%s: Go %d, C %d", w[1], got, want)
			}
		default:
			t.Errorf("a line not understood: %q", s.Text())
		}
	}
	// everything declared in Go was checked
	for n := range layoutTypes {
		if !seen["struct "+n] {
			t.Errorf("struct %s: not in the layout file", n)
		}
	}
	for n := range layoutCommands {
		if !seen["ioc "+n] {
			t.Errorf("%s: not in the layout file", n)
		}
	}
	for n := range layoutConstants {
		if !seen["const "+n] {
			t.Errorf("%s: not in the layout file", n)
		}
	}
}

func checkStruct(t *testing.T, name string, want int64) {
	t.Helper()
	typ, ok := layoutTypes[name]
	if !ok {
		t.Errorf("no Go type for struct %s", name)
	} else if int64(typ.Size()) != want {
		t.Errorf("struct %s: Go size %d, C size %d", name, typ.Size(), want)
	}
}

func checkField(t *testing.T, name string, want int64) {
	t.Helper()
	sf := strings.SplitN(name, ".", 2)
	typ, ok := layoutTypes[sf[0]]
	if !ok || len(sf) != 2 {
		t.Errorf("no Go type for %s", name)
		return
	}
	goName := strings.ReplaceAll(sf[1], "_", "")
	fld, ok := typ.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, goName) })
	if !ok {
		t.Errorf("struct %s: no Go field for %s", sf[0], sf[1])
	} else if int64(fld.Offset) != want {
		t.Errorf("%s: Go offset %d, C offset %d", name, fld.Offset, want)
	}
}
