"""Host-side helpers under Triton's ``triton.tools`` names (``tensor_descriptor``)."""
