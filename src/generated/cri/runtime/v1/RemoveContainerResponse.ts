// Original file: proto/cri/api.proto


export interface RemoveContainerResponse {
}

export interface RemoveContainerResponse__Output {
}
