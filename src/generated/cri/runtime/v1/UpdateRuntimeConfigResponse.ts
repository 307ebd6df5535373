// Original file: proto/cri/api.proto


export interface UpdateRuntimeConfigResponse {
}

export interface UpdateRuntimeConfigResponse__Output {
}
