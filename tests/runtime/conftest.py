import pytest


@pytest.fixture(params=[1, 2], ids=["1dom", "2dom"])
def domains(request):
    return request.param
