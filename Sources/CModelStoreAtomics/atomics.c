// Everything lives in include/CModelStoreAtomics.h as static inline functions, so Swift
// inlines them; the package manager needs one source file to build the module.
#include "CModelStoreAtomics.h"
