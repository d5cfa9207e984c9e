# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)

#cython: language_level=3

cimport pyverbs.providers.wren.libwren as dv

from pyverbs.addr cimport AH
from pyverbs.base cimport PyverbsObject
from pyverbs.device cimport Context
from pyverbs.qp cimport QPEx


cdef class WrenContext(Context):
    pass


cdef class WrenDVDeviceAttr(PyverbsObject):
    cdef dv.wrendv_device_attr device_attr


cdef class WrenDVQPInitAttr(PyverbsObject):
    cdef dv.wrendv_qp_init_attr qp_init_attr


cdef class WrenQP(QPEx):
    pass


cdef class WrenDVAHAttr(PyverbsObject):
    cdef dv.wrendv_ah_attr ah_attr


cdef class WrenAH(AH):
    pass
