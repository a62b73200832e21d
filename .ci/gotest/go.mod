module perform.ci/gotest

go 1.26.8
