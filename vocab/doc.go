// Package vocab holds the words the other packages share: the enumerated
// values a scenario spells (arrival processes, backoff kinds, jitter,
// outcome classes, service-time laws, queues and their disciplines,
// autoscaler signals), the defaults more than one package fills in, and
// the settings of the wait tracers (Tracers), which a scenario decodes and
// the driver sends.
//
// Each enumeration is a typed value with String (the name a scenario, a
// flag or the result document uses), a Parse function whose error lists
// the valid names, and a Names function giving those names in the order
// they are shown to users (for validation and "did you mean"
// suggestions). Parse functions ignore case and surrounding space.
//
// It imports the standard library only, so that analysis, loadgen,
// scenarios and the specimen can share it and still import nothing else
// of the module.
package vocab
