package interp

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
)

// PanicError is a panic caught in a worker goroutine. The goroutine that waits for the workers
// panics again with it, so that the program's top level can recover it (a panic in a worker
// would otherwise end the program before any cleanup); Stack is the worker's.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprint(e.Value) }

// catchPanic records the first panic of a worker into first; deferred by each worker.
func catchPanic(first *atomic.Pointer[PanicError]) {
	if r := recover(); r != nil {
		first.CompareAndSwap(nil, &PanicError{Value: r, Stack: debug.Stack()})
	}
}
