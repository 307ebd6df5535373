// Original file: proto/cri/api.proto


export interface StopContainerResponse {
}

export interface StopContainerResponse__Output {
}
